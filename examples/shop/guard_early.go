package shop

// earlyMarkGuard marks a key complete before the side effect, storing the
// reply the shop intends to send (mark the key done, then do the work, as a
// handler that registers an id as seen before processing it does). If the
// charge then fails the shop answers 502, but the key stays marked: a retry
// replays a success although nothing was charged, an acknowledged intent
// with no effect. Used by the "mark-first" profile.
type earlyMarkGuard struct {
	inner guard
}

func (g earlyMarkGuard) begin(c call) (claim, *reply, error) {
	cl, rep, err := g.inner.begin(c)
	if cl != nil {
		cl = earlyClaim{cl}
	}
	return cl, rep, err
}

type earlyClaim struct {
	claim
}

// prepare marks the key complete with the planned reply: the flaw.
func (c earlyClaim) prepare(planned reply) { c.claim.complete(planned) }

// release has nothing to undo: the key was already marked complete, and
// that mark is what a retry will see.
func (c earlyClaim) release() {}
