package shop

// unscopedGuard is the correct guard with keys that are not scoped to the
// operation: a completed key is looked up by the key alone, so the same
// key sent to another endpoint gets that endpoint's stored reply, and the
// request is never run. Within one operation it is the correct guard (a
// changed payload is still refused with 422). Used by the "unscoped-keys"
// profile.
type unscopedGuard struct{ inner *atomicGuard }

func (g unscopedGuard) begin(c call) (claim, *reply, error) {
	g.inner.mu.Lock()
	e, ok := g.inner.entries[c.key]
	if ok && e.done && e.op != c.op.name {
		rep := e.rep // the flaw: another operation's reply, replayed
		g.inner.mu.Unlock()
		return nil, &rep, nil
	}
	g.inner.mu.Unlock()
	return g.inner.begin(c)
}
