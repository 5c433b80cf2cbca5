package shop

import (
	"fmt"
	"sync"
)

// atomicGuard is the correct strategy: an atomic claim per key under one
// mutex, so that exactly one request with a given key executes at a time.
// A key is in flight from begin until complete or release; then complete
// forever (no expiry: this is a reference target), or released. A
// released key stays bound to its payload: the call that gave it up may
// have charged before it failed (a reply from payments lost, a client
// gone mid-call), so only a retry of the same request may claim it again;
// another payload under the key is still refused (422), rather than
// taking the key over and leaving the first request's charge without a
// reply.
//
// With a journal (the shop runs with --state) every transition is written
// and fsynced before the shop acts on it: in_progress before the charge,
// complete (with the reply) before the reply is sent, released before a
// retry may execute. The store is loaded at start, so completed keys replay
// across restarts. An in_progress record left by an earlier boot belongs
// to a process that died mid-request: the key is stale and the next
// request with it claims it again. That re-execution is safe because the
// client's key goes downstream as the Idempotency-Key: if the dead process
// did charge, payments replays that charge instead of making another.
type atomicGuard struct {
	journal *journal // nil: in memory only
	boot    string
	// reclaimStale lets a request claim a key whose in_progress record was
	// written by an earlier boot (a lease that ends with its process). Only
	// the lock-no-lease profile turns it off.
	reclaimStale bool

	mu      sync.Mutex
	entries map[string]*keyEntry
}

type keyEntry struct {
	fingerprint string
	op          string
	// boot is the boot id of the process that claimed the key.
	boot string
	done bool
	// released: no request holds the key; the next one with the same
	// fingerprint claims it again.
	released bool
	rep      reply
}

// newAtomicGuard returns the correct guard over j (nil: in memory only),
// loaded with what j holds.
func newAtomicGuard(j *journal, boot string) *atomicGuard {
	g := &atomicGuard{journal: j, boot: boot, reclaimStale: true, entries: make(map[string]*keyEntry)}
	for _, rec := range j.records() {
		switch rec.State {
		case stateInProgress:
			g.entries[rec.Key] = &keyEntry{fingerprint: rec.Fingerprint, op: rec.Op, boot: rec.Boot}
		case stateComplete:
			g.entries[rec.Key] = &keyEntry{fingerprint: rec.Fingerprint, op: rec.Op, done: true, rep: rec.storedReply()}
		case stateReleased:
			if rec.Fingerprint == "" {
				// Written by an older shop, or under a guard that
				// fingerprints nothing (mismatch, payload-dedup), where
				// an empty fingerprint matches every payload anyway.
				delete(g.entries, rec.Key)
				continue
			}
			g.entries[rec.Key] = &keyEntry{fingerprint: rec.Fingerprint, op: rec.Op, released: true}
		}
	}
	return g
}

func (g *atomicGuard) begin(c call) (claim, *reply, error) {
	switch {
	case c.key == "":
		return nil, nil, errKeyRequired
	case len(c.key) > maxKeyLen:
		return nil, nil, errKeyInvalid
	}
	if err := g.journal.failed(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errStore, err)
	}
	g.mu.Lock()
	prev, ok := g.entries[c.key]
	if ok {
		switch {
		case prev.fingerprint != c.fingerprint:
			// Also for a stale or a released claim: the process that
			// made it may have charged for that payload.
			g.mu.Unlock()
			return nil, nil, errKeyReused
		case prev.done:
			rep := prev.rep
			g.mu.Unlock()
			return nil, &rep, nil
		case prev.released:
			// Given up after a failed call: the retry claims it again,
			// below, with the same key downstream.
		case prev.boot == g.boot || !g.reclaimStale:
			g.mu.Unlock()
			return nil, nil, errInFlight
		}
		// Stale (claimed by an earlier boot that never finished) or
		// released: claim it again, below.
	}
	e := &keyEntry{fingerprint: c.fingerprint, op: c.op.name, boot: g.boot}
	g.entries[c.key] = e
	g.mu.Unlock()

	// Written outside the mutex: the entry already turns duplicates away,
	// and other keys need not wait for this fsync.
	if err := g.journal.append(keyRecord{Key: c.key, State: stateInProgress, Op: e.op, Fingerprint: e.fingerprint, Boot: g.boot}); err != nil {
		g.replace(c.key, e, prev)
		return nil, nil, fmt.Errorf("%w: %v", errStore, err)
	}
	return &atomicClaim{g: g, key: c.key, e: e}, nil, nil
}

// replace puts next (nil: nothing) in e's place if e is still the key's
// entry and not complete.
func (g *atomicGuard) replace(key string, e, next *keyEntry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e.done || g.entries[key] != e {
		return
	}
	if next == nil {
		delete(g.entries, key)
		return
	}
	g.entries[key] = next
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
	body := final.body
	// Persisted before the reply goes out, so that a crash after the reply
	// still replays it. If the write fails the key stays complete in
	// memory (this process replays it) and the store refuses new claims.
	_ = c.g.journal.append(keyRecord{Key: c.key, State: stateComplete, Op: c.e.op, Fingerprint: c.e.fingerprint,
		Status: final.status, Reply: &body})
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.e.done = true
	c.e.rep = final
}

// release gives up a key that is still in flight: a retry of the same
// request may claim it again, another payload still may not. A completed
// key is never released: its reply must keep being replayed.
func (c *atomicClaim) release() {
	c.g.mu.Lock()
	current := !c.e.done && c.g.entries[c.key] == c.e
	c.g.mu.Unlock()
	if !current {
		return
	}
	// Written while the entry still turns duplicates away, so that the
	// released record cannot land after a later claim's records. If it is
	// lost, the in_progress record is stale after a restart anyway.
	_ = c.g.journal.append(keyRecord{Key: c.key, State: stateReleased, Op: c.e.op, Fingerprint: c.e.fingerprint})
	c.g.replace(c.key, c.e, &keyEntry{fingerprint: c.e.fingerprint, op: c.e.op, released: true})
}
