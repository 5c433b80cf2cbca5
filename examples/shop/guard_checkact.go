package shop

import (
	"runtime"
	"sync"
	"time"
)

// DefaultWindow is the check-then-act profile's default pause between
// looking the key up and starting the work (--window).
const DefaultWindow = 50 * time.Microsecond

// checkThenActGuard is check-then-act on a durable store (a SQLite cache,
// say; here the JSONL store) used as "look the key up; if absent, do the
// work; then insert the result". The lookup and the insert are separate
// steps with the work between them and no claim, so two requests with the
// same key that arrive together both miss, both charge, and the second
// insert overwrites the first. The window (--window) widens the gap between
// the lookup and the work; it is a busy wait, not a sleep, so that it is as
// long as asked even when it is shorter than the scheduler's sleep
// granularity. No key is passed downstream, so payments cannot catch the
// duplicate either, and nothing is written before the charge, so a crash
// after the charge leaves nothing behind and the retry charges again.
// Sequential retries replay, and a crash after the reply is fine. Used by
// the "check-then-act" profile.
type checkThenActGuard struct {
	journal *journal
	window  time.Duration

	mu   sync.Mutex
	done map[string]keyEntry // completed keys only; there is no in_progress
}

func newCheckThenActGuard(j *journal, window time.Duration) *checkThenActGuard {
	g := &checkThenActGuard{journal: j, window: window, done: make(map[string]keyEntry)}
	for _, rec := range j.records() {
		if rec.State == stateComplete {
			g.done[rec.Key] = keyEntry{fingerprint: rec.Fingerprint, op: rec.Op, done: true, rep: rec.storedReply()}
		}
	}
	return g
}

func (g *checkThenActGuard) begin(c call) (claim, *reply, error) {
	switch {
	case c.key == "":
		return nil, nil, errKeyRequired
	case len(c.key) > maxKeyLen:
		return nil, nil, errKeyInvalid
	}
	// Check...
	g.mu.Lock()
	e, ok := g.done[c.key]
	g.mu.Unlock()
	if ok {
		if e.fingerprint != c.fingerprint {
			return nil, nil, errKeyReused
		}
		rep := e.rep
		return nil, &rep, nil
	}
	// ...then act, outside any lock: the flaw.
	spin(g.window)
	return &checkThenActClaim{g: g, key: c.key, fingerprint: c.fingerprint, op: c.op.name}, nil, nil
}

// spin busy-waits for d, yielding so that the requests it races with run.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
		runtime.Gosched()
	}
}

type checkThenActClaim struct {
	g           *checkThenActGuard
	key         string
	fingerprint string
	op          string
}

// downstreamKey is empty: the charge is made without a key.
func (c *checkThenActClaim) downstreamKey() string { return "" }

func (c *checkThenActClaim) prepare(reply) {}

// complete inserts the result, replacing whatever a racing request
// inserted meanwhile (INSERT OR REPLACE). 5xx replies are not stored.
func (c *checkThenActClaim) complete(final reply) {
	if final.status >= 500 {
		return
	}
	body := final.body
	_ = c.g.journal.append(keyRecord{Key: c.key, State: stateComplete, Op: c.op, Fingerprint: c.fingerprint,
		Status: final.status, Reply: &body})
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.g.done[c.key] = keyEntry{fingerprint: c.fingerprint, op: c.op, done: true, rep: final}
}

// release has nothing to undo: nothing was written before the work.
func (c *checkThenActClaim) release() {}
