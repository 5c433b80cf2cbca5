package httpfake

import "sync"

// MaxKeyLen is the longest idempotency key accepted, as at Stripe.
const MaxKeyLen = 255

// ClaimResult is what Keys.Claim found.
type ClaimResult int

// The results of a claim.
const (
	// Claimed: the caller owns the key and must Complete or Release it.
	Claimed ClaimResult = iota
	// InFlight: another request holds the key (answer 409).
	InFlight
	// Mismatch: the key was completed with another fingerprint.
	Mismatch
	// Done: the key was completed with this fingerprint; replay the reply.
	Done
)

// Keys holds the state of every idempotency key a fake has seen. Keys never
// expire: a run is short, and a key that expired mid-run would hide a
// duplicate. The zero value is ready.
type Keys struct {
	mu sync.Mutex
	m  map[string]*keyEntry
}

type keyEntry struct {
	fingerprint string
	done        bool
	result      Reply
}

// Claim tries to take key for a request with fingerprint fp. With Done it
// returns the stored reply, marked replayed.
func (ks *Keys) Claim(key, fp string) (ClaimResult, Reply) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	e, ok := ks.m[key]
	switch {
	case !ok:
		if ks.m == nil {
			ks.m = map[string]*keyEntry{}
		}
		ks.m[key] = &keyEntry{fingerprint: fp}
		return Claimed, Reply{}
	case !e.done:
		return InFlight, Reply{}
	case e.fingerprint != fp:
		return Mismatch, Reply{}
	}
	rp := e.result
	rp.Header = rp.Header.Clone()
	rp.Replayed, rp.Effect = true, 0 // a replay records nothing
	return Done, rp
}

// Complete stores result against a key the caller claimed.
func (ks *Keys) Complete(key string, result Reply) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if e := ks.m[key]; e != nil {
		e.done = true
		result.Header = result.Header.Clone()
		e.result = result
	}
}

// Release gives up a key the caller claimed but did not complete, so that
// a retry can claim it.
func (ks *Keys) Release(key string) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if e := ks.m[key]; e != nil && !e.done {
		delete(ks.m, key)
	}
}
