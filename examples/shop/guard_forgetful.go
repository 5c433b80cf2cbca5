package shop

// forgetfulGuard remembers that a key was done but not what was answered,
// like a key store that only answers is_processed(). A replay cannot return
// the first reply, so it makes one up: a success with a freshly minted id.
// The client can no longer tell which order its retry refers to. Used by
// the "unstable-replay" profile.
type forgetfulGuard struct {
	inner guard
	ids   *sequence
}

func (g forgetfulGuard) begin(c call) (claim, *reply, error) {
	cl, rep, err := g.inner.begin(c)
	switch {
	case err != nil:
		return nil, nil, err
	case rep != nil:
		// The flaw: the stored reply is empty, so invent one.
		fresh := success(effectNoop, map[string]string{"id": g.ids.next(c.op.prefix)})
		return nil, &fresh, nil
	default:
		return forgetfulClaim{cl}, nil, nil
	}
}

type forgetfulClaim struct {
	claim
}

// complete keeps only the status: the key is done, the answer is dropped.
func (c forgetfulClaim) complete(final reply) {
	c.claim.complete(reply{status: final.status})
}
