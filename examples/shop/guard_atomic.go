package shop

import "sync"

// atomicGuard is the correct strategy: an atomic claim per key under one
// mutex, so that exactly one request with a given key executes at a time.
// A key is in flight from begin until complete or release, then complete
// forever (this is an in-memory reference target: no expiry).
type atomicGuard struct {
	mu      sync.Mutex
	entries map[string]*keyEntry
}

type keyEntry struct {
	fingerprint string
	done        bool
	rep         reply
}

func newAtomicGuard() *atomicGuard {
	return &atomicGuard{entries: make(map[string]*keyEntry)}
}

func (g *atomicGuard) begin(c call) (claim, *reply, error) {
	switch {
	case c.key == "":
		return nil, nil, errKeyRequired
	case len(c.key) > maxKeyLen:
		return nil, nil, errKeyInvalid
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, ok := g.entries[c.key]; ok {
		switch {
		case e.fingerprint != c.fingerprint:
			return nil, nil, errKeyReused
		case !e.done:
			return nil, nil, errInFlight
		default:
			rep := e.rep
			return nil, &rep, nil
		}
	}
	e := &keyEntry{fingerprint: c.fingerprint}
	g.entries[c.key] = e
	return &atomicClaim{g: g, key: c.key, e: e}, nil, nil
}

type atomicClaim struct {
	g   *atomicGuard
	key string
	e   *keyEntry
}

func (c *atomicClaim) downstreamKey() string { return c.key }

// prepare does nothing: a key is complete only once its effect happened.
func (c *atomicClaim) prepare(reply) {}

func (c *atomicClaim) complete(final reply) {
	if final.status >= 500 {
		c.release()
		return
	}
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.e.done = true
	c.e.rep = final
}

// release forgets a key that is still in flight. A completed key is never
// forgotten: its reply must keep being replayed.
func (c *atomicClaim) release() {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	if !c.e.done && c.g.entries[c.key] == c.e {
		delete(c.g.entries, c.key)
	}
}
