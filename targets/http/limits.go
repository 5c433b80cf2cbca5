package http

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/idemcheck/idemcheck/faults"
)

// Limits bound what a run sends to a target: a budget of requests and a
// rate. A target marked Remote gets DefaultRemoteLimits unless it sets its
// own, so that pointing idemcheck at a staging API or a vendor's sandbox
// cannot flood it.
type Limits struct {
	// Requests is the most requests the run sends (attempts, burst copies
	// and read-backs alike); 0 means no budget.
	Requests int
	// PerSecond is the average rate; 0 means no limit. A burst's copies
	// are let through together once the bucket holds them all.
	PerSecond float64
}

// DefaultRemoteLimits are the limits of a remote target that sets none:
// about three times what a run of every check needs, at a pace a shared
// staging API does not notice.
var DefaultRemoteLimits = Limits{Requests: 1500, PerSecond: 10}

// UserAgent is sent with every request idemcheck makes, so that the
// operators of an API can tell its traffic apart.
const UserAgent = "idemcheck (+https://github.com/idemcheck/idemcheck)"

// ErrBudget is returned (wrapped) once a target's request budget is spent.
type ErrBudget struct{ Requests int }

func (e *ErrBudget) Error() string {
	return fmt.Sprintf("the request budget of %d requests is spent: raise the target's limits.requests, or run fewer checks (--only) or trials (--trials)", e.Requests)
}

// limiter counts requests against the budget and paces them with a token
// bucket (golang.org/x/time/rate) that holds a second's worth of
// requests, or a whole burst if that is more, and starts full.
type limiter struct {
	mu    sync.Mutex
	lim   Limits
	sent  int
	spent error
	rate  *rate.Limiter // nil without a rate
}

func newLimiter(l Limits, burst int) *limiter {
	if l.Requests <= 0 && l.PerSecond <= 0 {
		return nil
	}
	out := &limiter{lim: l}
	if l.PerSecond > 0 {
		capacity := int(math.Ceil(max(l.PerSecond, float64(burst), 1)))
		out.rate = rate.NewLimiter(rate.Limit(l.PerSecond), capacity)
	}
	return out
}

// take waits until n requests may be sent and counts them; it fails at
// once when the budget cannot hold them, and with ctx's error when ctx
// ends first. n requests that are more than the bucket holds (a burst)
// wait for a full bucket and then go together.
func (l *limiter) take(ctx context.Context, n int) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	if l.lim.Requests > 0 && l.sent+n > l.lim.Requests {
		l.spent = &ErrBudget{Requests: l.lim.Requests}
		l.mu.Unlock()
		return l.spent
	}
	l.sent += n
	l.mu.Unlock()
	if l.rate == nil {
		return nil
	}
	r := l.rate.ReserveN(time.Now(), min(n, l.rate.Burst()))
	wait := r.Delay()
	if wait == 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		r.Cancel() // the tokens go back to the requests still waiting
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Sent returns how many requests the target has been sent.
func (t *Target) Sent() int {
	if t.limit == nil {
		return 0
	}
	t.limit.mu.Lock()
	defer t.limit.mu.Unlock()
	return t.limit.sent
}

// Take waits until n more requests may be sent to the target (its rate)
// and counts them against its budget: an effect observer reading back
// through the target's API calls it too.
func (t *Target) Take(ctx context.Context, n int) error { return t.limit.take(ctx, n) }

// Exhausted returns the budget error once a request was refused for it:
// the harness stops testing the target, which cannot be judged on a run
// cut short.
func (t *Target) Exhausted() error {
	if t.limit == nil {
		return nil
	}
	t.limit.mu.Lock()
	defer t.limit.mu.Unlock()
	return t.limit.spent
}

// remoteSupports says which faults a remote target can take: only what a
// client can do (time out, give up, lose or never send a reply, send
// duplicates). Crashes need a process idemcheck started, downstream faults
// a fake the remote API does not call.
func remoteSupports(f faults.Fault) bool {
	switch f.(type) {
	case faults.CrashFault, faults.DownstreamFault:
		return false
	}
	return true
}
