package payments

import (
	"fmt"
	"net/http"
	"sync"
)

// maxKeyLen is the longest Idempotency-Key accepted, as at Stripe.
const maxKeyLen = 255

// keyStore holds the state of every idempotency key the server has seen.
// Keys never expire: a run is short, and a key that expired mid-run would
// hide a double charge.
type keyStore struct {
	mu sync.Mutex
	m  map[string]*keyEntry
}

// keyEntry is one key: in flight until done, then the stored result.
type keyEntry struct {
	fingerprint string
	done        bool
	result      reply
}

// claim tries to take key for a request with parameters fingerprint fp. It
// returns true if the caller now owns the key and must call complete or
// release. Otherwise it returns the reply to send instead: a 409 while the
// key is in flight, a 400 if fp differs from the first request's, or the
// stored result, marked replayed.
func (ks *keyStore) claim(key, fp string) (reply, bool) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	e, ok := ks.m[key]
	if !ok {
		if ks.m == nil {
			ks.m = map[string]*keyEntry{}
		}
		ks.m[key] = &keyEntry{fingerprint: fp}
		return reply{}, true
	}
	if !e.done {
		return (&apiError{
			Status:  http.StatusConflict,
			Type:    errIdempotency,
			Message: fmt.Sprintf("A request with idempotency key %s is still in flight; retry after it completes.", quoteShort(key)),
		}).reply(), false
	}
	if e.fingerprint != fp {
		return (&apiError{
			Status:  http.StatusBadRequest,
			Type:    errIdempotency,
			Message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than " + quoteShort(key) + " if you meant to execute a different request.",
		}).reply(), false
	}
	rp := e.result
	rp.replayed = true
	return rp, false
}

// complete stores result against a key the caller claimed.
func (ks *keyStore) complete(key string, result reply) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if e := ks.m[key]; e != nil {
		e.done = true
		e.result = result
	}
}

// release gives up a key the caller claimed but did not complete, so that a
// retry can claim it.
func (ks *keyStore) release(key string) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if e := ks.m[key]; e != nil && !e.done {
		delete(ks.m, key)
	}
}
