package engine

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// Clock is the time as an instance of a target served in this process
// sees it, when it reads it there (harness.Env.Now): the wall clock,
// moved forward where the probes would otherwise wait for it to pass (a
// late retry's delay). Once the instance has read it, the probes move it
// on instead of waiting: the instance sees the time pass as it would have.
// The zero value is not usable: see NewClock.
type Clock struct {
	read atomic.Bool
	mu   sync.Mutex
	// moves are the times (wall clock) the clock was moved forward at and
	// its lead over the wall clock from then on, oldest first.
	moves []clockMove
}

type clockMove struct {
	at   time.Time
	lead time.Duration
}

// NewClock returns a clock that reads as the wall clock until moved.
func NewClock() *Clock { return &Clock{} }

// Now is the instance's time; reading it lets the probes move it.
func (c *Clock) Now() time.Time {
	c.read.Store(true)
	now := time.Now()
	return now.Add(c.leadAt(now))
}

// Read says whether the instance has read the clock.
func (c *Clock) Read() bool { return c != nil && c.read.Load() }

// leadAt is the clock's lead over the wall clock at wall time t.
func (c *Clock) leadAt(t time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lead time.Duration
	for _, m := range c.moves {
		if m.at.After(t) {
			break
		}
		lead = m.lead
	}
	return lead
}

// passSince moves the clock on, if need be, so that d has passed on it
// since wall time since (what the instance saw then plus d); it says
// whether it moved it.
func (c *Clock) passSince(since time.Time, d time.Duration) bool {
	want := since.Add(c.leadAt(since)).Add(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	lead := want.Sub(now)
	if n := len(c.moves); n > 0 && c.moves[n-1].lead >= lead {
		return false
	}
	if lead <= 0 {
		return false
	}
	c.moves = append(c.moves, clockMove{at: now, lead: lead})
	return true
}

// noteClockMoved records, once, that a late retry's wait of d passed on
// the instance's clock instead of the wall clock: a key store of the
// target that reads time.Now did not see it pass, so its expiry was not
// examined. The report says so beside the score.
func (r *runner) noteClockMoved(d time.Duration) {
	if r.rec == nil || slices.ContainsFunc(r.rec.Unexamined, func(u record.Unexamined) bool { return u.Cause == record.CauseClock }) {
		return
	}
	r.rec.Unexamined = append(r.rec.Unexamined, record.Unexamined{Check: checks.CheckRetryLate, Cause: record.CauseClock,
		Reason: fmt.Sprintf("expiry by time.Now: the target reads env.Now, so the late retries' %s passed on that clock, moved on at once, not on the wall clock: a key store that keeps time by time.Now would not have seen it pass, and was not examined for expiry (stamp keys with env.Now, or read neither clock there)", d)})
}
