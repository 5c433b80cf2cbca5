package brokers

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Kind says what an Observation saw.
type Kind string

// The kinds of observation. Not every broker sees every kind: see each
// broker's package documentation.
const (
	// Published: the broker stored the event (Detail: its position). It is
	// recorded when the publish returns, which may be after the consumer
	// got the event.
	Published Kind = "published"
	// PublishedDuplicate: the broker recognised a publish as a duplicate
	// and dropped it.
	PublishedDuplicate Kind = "published-duplicate"
	// Delivered: the broker handed the event to a consumer (Attempt: the
	// broker's delivery count, when it has one).
	Delivered Kind = "delivered"
	// Acked: the consumer's ack, or an offset commit covering the event,
	// reached the broker.
	Acked Kind = "acked"
	// Nacked: the consumer refused the event (a negative ack, a reject,
	// a terminate), asking for redelivery or giving it up.
	Nacked Kind = "nacked"
	// AckDropped: a DropAck fault swallowed an ack.
	AckDropped Kind = "ack-dropped"
	// AckHeld: a DelayAck fault is holding an ack.
	AckHeld Kind = "ack-held"
	// AckReleased: a held ack was passed on to the broker.
	AckReleased Kind = "ack-released"
	// Rebalanced: a Rebalance fault made the group rebalance.
	Rebalanced Kind = "rebalanced"
	// Held: a Reorder fault held the event back at publish.
	Held Kind = "held"
)

// Observation is one thing that happened to an event.
type Observation struct {
	// Seq orders observations within one log; it starts at 1.
	Seq int64 `json:"seq"`
	// Kind says what happened.
	Kind Kind `json:"kind"`
	// EventID is the event it happened to.
	EventID string `json:"event_id"`
	// Attempt is the broker's delivery count for Delivered, 0 if unknown.
	Attempt int `json:"attempt,omitempty"`
	// Conn names the client connection or group member involved, if known.
	Conn string `json:"conn,omitempty"`
	// At is when it was recorded.
	At time.Time `json:"at"`
	// Detail is broker-specific (a position, an ack subject, an error).
	Detail string `json:"detail,omitempty"`
}

// Log is an append-only, concurrency-safe record of observations, with
// waits. The zero value is ready to use.
type Log struct {
	mu      sync.Mutex
	obs     []Observation
	changed chan struct{} // closed and replaced on every Record
}

// Record appends o, giving it the next sequence number and, if At is
// zero, the time. It returns the stored observation.
func (l *Log) Record(o Observation) Observation {
	l.mu.Lock()
	defer l.mu.Unlock()
	o.Seq = int64(len(l.obs)) + 1
	if o.At.IsZero() {
		o.At = time.Now()
	}
	l.obs = append(l.obs, o)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return o
}

// Observations returns a copy of everything recorded so far, in order.
func (l *Log) Observations() []Observation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Observation(nil), l.obs...)
}

// Count returns how many observations of kind k were recorded for event
// id.
func (l *Log) Count(k Kind, id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.countLocked(k, id)
}

func (l *Log) countLocked(k Kind, id string) int {
	n := 0
	for _, o := range l.obs {
		if o.Kind == k && o.EventID == id {
			n++
		}
	}
	return n
}

// Wait returns once at least n observations of kind k were recorded for
// event id, or an error saying what was expected and seen when ctx ends
// first.
func (l *Log) Wait(ctx context.Context, k Kind, id string, n int) error {
	return l.WaitFunc(ctx, func(obs []Observation) bool {
		c := 0
		for _, o := range obs {
			if o.Kind == k && o.EventID == id {
				c++
			}
		}
		return c >= n
	}, func() string {
		return fmt.Sprintf("expected %d %q observation(s) of event %q, saw %d (%s)", n, k, id, l.Count(k, id), l.summary(id))
	})
}

// WaitTotal returns once at least n observations of kind k were recorded,
// for any events, or an error when ctx ends first. It reads each
// observation once, so that waiting for many is cheap.
func (l *Log) WaitTotal(ctx context.Context, k Kind, n int) error {
	scanned, seen := 0, 0
	return l.WaitFunc(ctx, func(obs []Observation) bool {
		for _, o := range obs[scanned:] {
			if o.Kind == k {
				seen++
			}
		}
		scanned = len(obs)
		return seen >= n
	}, func() string {
		return fmt.Sprintf("expected %d %q observation(s) in all, saw %d", n, k, seen)
	})
}

// WaitFunc returns once done, called with every observation so far after
// each Record, returns true; or, when ctx ends first, an error made of
// describe's text (or a generic one when describe is nil).
func (l *Log) WaitFunc(ctx context.Context, done func([]Observation) bool, describe func() string) error {
	for {
		l.mu.Lock()
		ok := done(l.obs)
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			msg := "the awaited observation"
			if describe != nil {
				msg = describe()
			}
			return fmt.Errorf("%s: %w", msg, context.Cause(ctx))
		}
	}
}

// summary lists the kinds recorded for id, for error messages.
func (l *Log) summary(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ""
	for _, o := range l.obs {
		if o.EventID != id {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += string(o.Kind)
	}
	if s == "" {
		return "nothing recorded for it"
	}
	return "recorded: " + s
}
