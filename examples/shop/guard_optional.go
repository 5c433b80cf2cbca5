package shop

// optionalKeyGuard de-duplicates requests that carry a key and executes the
// others unguarded: idempotency offered per call rather than enforced by the
// framework. Used by the "nodryrun" profile.
type optionalKeyGuard struct {
	inner guard
}

func (g optionalKeyGuard) begin(c call) (claim, *reply, error) {
	if c.key == "" {
		// The flaw: no key, no de-duplication, and no refusal either.
		return unguarded{}, nil, nil
	}
	return g.inner.begin(c)
}
