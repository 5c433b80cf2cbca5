package shop

// blindGuard keys on the Idempotency-Key alone and never compares payloads,
// like a store that records "key → result" without a request hash. A key
// reused with a different payload silently replays the first result
// instead of being refused with 422. Used by the "mismatch" profile.
type blindGuard struct {
	inner guard
}

func (g blindGuard) begin(c call) (claim, *reply, error) {
	c.fingerprint = "" // the flaw: every payload looks the same
	return g.inner.begin(c)
}
