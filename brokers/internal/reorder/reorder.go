package reorder

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
)

// DefaultPublishTimeout bounds a publish whose context has no deadline.
const DefaultPublishTimeout = 30 * time.Second

// PublishFunc stores one event on the broker.
type PublishFunc func(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error)

// Publisher wraps a broker's PublishFunc: it records each publish in the
// log and holds back the events a Reorder fault was armed for.
type Publisher struct {
	pub PublishFunc
	log *brokers.Log

	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	armed map[string]brokers.Fault // by event id
	held  map[string][]*heldEvent  // by entity, oldest first
}

type heldEvent struct {
	ev    brokers.Event
	dedup bool
	taken bool
}

// New returns a Publisher that stores events with pub and records them in
// log.
func New(pub PublishFunc, log *brokers.Log) *Publisher {
	life, cancel := context.WithCancel(context.Background())
	return &Publisher{pub: pub, log: log, life: life, cancel: cancel,
		armed: map[string]brokers.Fault{}, held: map[string][]*heldEvent{}}
}

// Arm arms a Reorder fault.
func (p *Publisher) Arm(f brokers.Fault) {
	p.mu.Lock()
	p.armed[f.EventID] = f
	p.mu.Unlock()
}

// Publish stores ev, unless a Reorder fault holds it back (then it answers
// at once with Position "held"). After storing ev it stores every event
// held back for ev's entity, oldest first.
func (p *Publisher) Publish(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	if ev.ID == "" {
		return brokers.Receipt{}, fmt.Errorf("publish: the event id is empty; every event needs one")
	}
	if p.life.Err() != nil {
		return brokers.Receipt{}, fmt.Errorf("publish %s: %w", ev.ID, brokers.ErrClosed)
	}
	p.mu.Lock()
	f, hold := p.armed[ev.ID]
	if hold {
		delete(p.armed, ev.ID)
		h := &heldEvent{ev: ev, dedup: dedup}
		p.held[ev.Entity()] = append(p.held[ev.Entity()], h)
		p.wg.Add(1)
		go p.expire(h, f.HoldOrDefault())
	}
	p.mu.Unlock()
	if hold {
		p.log.Record(brokers.Observation{Kind: brokers.Held, EventID: ev.ID, Detail: "entity " + ev.Entity()})
		return brokers.Receipt{Position: "held"}, nil
	}
	rec, err := p.store(ctx, ev, dedup)
	if err != nil {
		return rec, err
	}
	for _, h := range p.takeHeld(ev.Entity()) {
		if _, err := p.store(ctx, h.ev, h.dedup); err != nil {
			return rec, fmt.Errorf("publish %s, held back behind %s: %w", h.ev.ID, ev.ID, err)
		}
	}
	return rec, nil
}

func (p *Publisher) store(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultPublishTimeout)
		defer cancel()
	}
	rec, err := p.pub(ctx, ev, dedup)
	if err != nil {
		return rec, fmt.Errorf("publish %s: %w", ev.ID, err)
	}
	kind := brokers.Published
	if rec.Duplicate {
		kind = brokers.PublishedDuplicate
	}
	p.log.Record(brokers.Observation{Kind: kind, EventID: ev.ID, Detail: rec.Position})
	return rec, nil
}

// takeHeld removes and returns the events held for entity.
func (p *Publisher) takeHeld(entity string) []*heldEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	hs := p.held[entity]
	delete(p.held, entity)
	for _, h := range hs {
		h.taken = true
	}
	return hs
}

// expire publishes h once hold has passed, unless a later event for its
// entity took it first or the publisher closed.
func (p *Publisher) expire(h *heldEvent, hold time.Duration) {
	defer p.wg.Done()
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.life.Done():
		return
	}
	p.mu.Lock()
	if h.taken {
		p.mu.Unlock()
		return
	}
	h.taken = true
	hs := p.held[h.ev.Entity()]
	for i, x := range hs {
		if x == h {
			p.held[h.ev.Entity()] = append(hs[:i:i], hs[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	if _, err := p.store(p.life, h.ev, h.dedup); err != nil {
		p.log.Record(brokers.Observation{Kind: brokers.Held, EventID: h.ev.ID, Detail: "publishing after the hold failed: " + err.Error()})
	}
}

// Close drops the events still held and waits for the hold timers.
func (p *Publisher) Close() {
	p.cancel()
	p.wg.Wait()
}
