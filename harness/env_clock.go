package harness

import "time"

// Now is the time for a target served in this process (a Go handler, see
// targets/http.CheckHandler) to keep its idempotency keys by: the wall
// clock, which the probes move forward where they would otherwise wait
// for it (a late retry's delay, see WithLateRetry). A handler whose key
// store reads the time from Now, not time.Now, lets a check skip that
// wait: the store sees the delay pass all the same, and one that forgets
// a key after it is found as surely, in a fraction of the time. Once the
// instance has read Now, the probes take it that its store does; a
// handler that reads the time from both has its expiries judged by Now's,
// and the report says beside the score that an expiry kept by time.Now
// was not examined (record.CauseClock). Inside a bubble of
// testing/synctest the probes wait instead, on the bubble's clock, which
// moves on at once: Now and time.Now both see the time pass.
func (e *Env) Now() time.Time {
	if e.clock == nil {
		return time.Now()
	}
	return e.clock.Now()
}
