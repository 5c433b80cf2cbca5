package shop

// memoryCacheGuard is an in-memory key cache as most code writes it: an
// in-process key → reply map (meant to become Redis or a database one day),
// and a charge made without passing the key on. It claims keys atomically
// (409 while in flight, 422 for another payload) and replays faithfully, so
// sequential retries and faults between the client and the shop are fine.
// But the cache dies with the process and payments is never told the key:
// after a crash, whether after the charge or after the reply, the retry
// charges again; so does the retry after a downstream failure that happened
// after the charge. It ignores --state. Used by the "memory-cache" profile.
type memoryCacheGuard struct {
	inner *atomicGuard // always without a journal
}

func (g memoryCacheGuard) begin(c call) (claim, *reply, error) {
	cl, rep, err := g.inner.begin(c)
	if cl != nil {
		cl = localClaim{cl}
	}
	return cl, rep, err
}

// localClaim is a claim whose key stays inside the shop.
type localClaim struct {
	claim
}

// downstreamKey is empty: the flaw's second half.
func (localClaim) downstreamKey() string { return "" }
