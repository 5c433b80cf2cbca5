package webhooks

import (
	"container/list"
	"context"
	"sync"
)

// lru is an in-memory de-duplicator of webhooks: seen event ids in an
// in-process ordered map, oldest evicted first beyond its size. It claims
// atomically (409 while in flight) and marks an event seen only once
// processed, so within one process it is exact; but the memory dies with
// the process and the profile passes no key downstream, so a redelivery
// after a restart or an eviction charges again.
type lru struct {
	size int

	mu       sync.Mutex
	inflight map[string]bool
	seen     map[string]*list.Element
	order    *list.List // of event ids, oldest first
}

func newLRU(d dedupDeps) (dedup, error) {
	return &lru{size: d.lruSize, inflight: map[string]bool{}, seen: map[string]*list.Element{}, order: list.New()}, nil
}

func (l *lru) begin(_ context.Context, ev event) (claim, verdict, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.seen[ev.ID] != nil:
		return nil, duplicate, nil
	case l.inflight[ev.ID]:
		return nil, inFlight, nil
	}
	l.inflight[ev.ID] = true
	return lruClaim{l: l, id: ev.ID}, process, nil
}

type lruClaim struct {
	l  *lru
	id string
}

func (c lruClaim) done() error {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	delete(c.l.inflight, c.id)
	c.l.seen[c.id] = c.l.order.PushBack(c.id)
	for c.l.order.Len() > c.l.size {
		oldest := c.l.order.Front()
		c.l.order.Remove(oldest)
		delete(c.l.seen, oldest.Value.(string))
	}
	return nil
}

func (c lruClaim) release() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	delete(c.l.inflight, c.id)
}
