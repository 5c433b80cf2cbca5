package shop

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// The records the retention guard adds to the durable store: when a key
// was admitted (and under which admission id), and when it was evicted.
// correct's loader ignores them.
const (
	stateAdmitted = "admitted"
	stateEvicted  = "evicted"
)

// retentionGuard is correct's guard on the durable store behind a key
// index that forgets: at most limit keys (least recently used first out),
// or keys older than ttl (counted from their admission, or from the
// start of the process for the keys it loaded). A forgotten key
// is dropped from the store as well, so its next request executes again,
// and under a new admission: the key passed downstream is the client's
// key scoped by its admission, as a store that keeps the downstream
// call's key beside its own record does. Within its retention a key
// behaves exactly as correct's (released claims keep their admission, so
// the retry after a failed charge reuses the downstream key; crashes
// replay); a retry after more than limit other keys, or after ttl, charges
// again. Used by the "bounded-keys" and "expiring-keys" profiles.
type retentionGuard struct {
	inner   *atomicGuard
	journal *journal
	// limit is how many keys are kept (0: no bound by count); ttl is how
	// long a key is kept after its admission (0: for ever).
	limit int
	ttl   time.Duration

	mu    sync.Mutex
	order *list.List // of *admission, most recent first
	at    map[string]*list.Element
}

// admission is one key in the index.
type admission struct {
	key string
	id  string
	at  time.Time
}

// newRetentionGuard returns the guard over j (nil: in memory only),
// loaded with what j holds and trimmed to what it would have kept.
func newRetentionGuard(j *journal, boot string, limit int, ttl time.Duration) *retentionGuard {
	g := &retentionGuard{inner: newAtomicGuard(j, boot), journal: j, limit: limit, ttl: ttl,
		order: list.New(), at: map[string]*list.Element{}}
	start := time.Now()
	for _, rec := range j.records() {
		switch rec.State {
		case stateAdmitted:
			g.remove(rec.Key)
			// A key loaded at start is kept for ttl from the start, as
			// a cache that sets its expiry when it loads a key does.
			g.at[rec.Key] = g.order.PushFront(&admission{key: rec.Key, id: rec.Admission, at: start})
		case stateEvicted:
			g.remove(rec.Key)
		default:
			if e, ok := g.at[rec.Key]; ok && g.ttl == 0 {
				g.order.MoveToFront(e)
			}
		}
	}
	g.trim(start)
	g.inner.mu.Lock()
	for k := range g.inner.entries {
		if _, ok := g.at[k]; !ok {
			delete(g.inner.entries, k)
		}
	}
	g.inner.mu.Unlock()
	return g
}

// remove forgets key in the index only.
func (g *retentionGuard) remove(key string) {
	if e, ok := g.at[key]; ok {
		g.order.Remove(e)
		delete(g.at, key)
	}
}

// trim evicts the keys beyond the limit and those older than ttl, and
// returns the keys evicted by count (those by age are recomputed from
// the admissions' times at start).
func (g *retentionGuard) trim(now time.Time) []string {
	for g.ttl > 0 && g.order.Len() > 0 {
		a := g.order.Back().Value.(*admission)
		if now.Sub(a.at) < g.ttl {
			break
		}
		g.drop(a.key)
	}
	var evicted []string
	for g.limit > 0 && g.order.Len() > g.limit {
		a := g.order.Back().Value.(*admission)
		g.drop(a.key)
		evicted = append(evicted, a.key)
	}
	return evicted
}

// drop forgets key in the index and in the store.
func (g *retentionGuard) drop(key string) {
	g.remove(key)
	g.inner.mu.Lock()
	delete(g.inner.entries, key)
	g.inner.mu.Unlock()
}

func (g *retentionGuard) begin(c call) (claim, *reply, error) {
	if c.key == "" || len(c.key) > maxKeyLen {
		return g.inner.begin(c) // refused there
	}
	now := time.Now()
	g.mu.Lock()
	g.trim(now)
	e, known := g.at[c.key]
	var evicted []string
	if !known {
		e = g.order.PushFront(&admission{key: c.key, id: newBootID(), at: now})
		g.at[c.key] = e
		evicted = g.trim(now)
	} else if g.ttl == 0 {
		g.order.MoveToFront(e)
	}
	a := *e.Value.(*admission)
	g.mu.Unlock()
	if !known {
		if err := g.journal.append(keyRecord{Key: c.key, State: stateAdmitted, Admission: a.id}); err != nil {
			return g.inner.begin(c) // refused there: the store failed
		}
	}
	for _, k := range evicted {
		_ = g.journal.append(keyRecord{Key: k, State: stateEvicted})
	}
	cl, rep, err := g.inner.begin(c)
	if cl != nil {
		sum := sha256.Sum256([]byte(c.key + "\x00" + a.id))
		cl = scopedClaim{claim: cl, key: "adm_" + hex.EncodeToString(sum[:20])}
	}
	return cl, rep, err
}

// scopedClaim passes the admission's downstream key on.
type scopedClaim struct {
	claim
	key string
}

func (c scopedClaim) downstreamKey() string { return c.key }
