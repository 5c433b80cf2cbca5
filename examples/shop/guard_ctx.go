package shop

import (
	"context"
)

// contextBoundGuard is the correct guard whose bookkeeping runs on the
// request's context, as a handler that passes r.Context() to its store's
// calls does: when the client disconnects mid-request, the context is
// cancelled, the write that records the outcome (or frees the key) fails
// like any call on a cancelled context, and the key stays in progress:
// every retry is answered 409 until the process restarts. Used by the
// "context-bookkeeping" profile.
type contextBoundGuard struct{ inner *atomicGuard }

func (g contextBoundGuard) begin(c call) (claim, *reply, error) {
	cl, rep, err := g.inner.begin(c)
	if cl == nil || c.ctx == nil {
		return cl, rep, err
	}
	return &contextBoundClaim{claim: cl, ctx: c.ctx}, nil, nil
}

type contextBoundClaim struct {
	claim
	ctx context.Context
}

func (c *contextBoundClaim) complete(final reply) {
	if c.ctx.Err() != nil {
		return // the write that records the outcome fails: the flaw
	}
	c.claim.complete(final)
}

func (c *contextBoundClaim) release() {
	if c.ctx.Err() != nil {
		return // the write that frees the key fails: the flaw
	}
	c.claim.release()
}
