package brokers

import (
	"fmt"
	"time"
)

// FaultKind names a way to make the broker deliver an event again, or out
// of order.
type FaultKind string

// The faults a broker may support (see Capabilities.Faults). A duplicate
// publish is not a fault to arm: it is PublishAgain. A crash of the
// consumer after its effect and before its ack is the harness's to cause
// (it kills the consumer's process); every broker then redelivers the
// unacknowledged event to the restarted consumer or another member, after
// at most AckWait.
const (
	// DropAck swallows the consumer's next ack (or offset commit) of the
	// event on its way to the broker; the consumer believes it acked. The
	// broker redelivers once its ack deadline passes (NATS, RabbitMQ), or
	// once another member claims the pending entry (Redis Streams), or at
	// the next rebalance or restart (Kafka, whose offset commit is
	// answered as if it had been stored).
	DropAck FaultKind = "drop-ack"
	// DelayAck holds the consumer's next ack of the event until the broker
	// has delivered the event again (the ack came too late), or until
	// Fault.Hold passes, then passes it on.
	DelayAck FaultKind = "delay-ack"
	// Rebalance makes the consumer group rebalance as soon as the event has
	// been delivered, before its ack: the event's partition is assigned
	// afresh and read again from the last committed offset (Kafka).
	Rebalance FaultKind = "rebalance"
	// Reorder holds the event back when it is published, and publishes it
	// right after the next event for the same entity (Event.Key), so that
	// the consumer sees the later event first; if none comes within
	// Fault.Hold, it is published then.
	Reorder FaultKind = "reorder"
)

// DefaultHold bounds DelayAck and Reorder when Fault.Hold is zero.
const DefaultHold = 10 * time.Second

// MaxHold is the longest Fault.Hold accepted.
const MaxHold = 5 * time.Minute

// Fault is one fault, armed for one event.
type Fault struct {
	// Kind is what to do.
	Kind FaultKind
	// EventID is the event it applies to. Required.
	EventID string
	// Hold bounds DelayAck and Reorder; zero means DefaultHold.
	Hold time.Duration
}

// Validate reports a fault that no broker can arm.
func (f Fault) Validate() error {
	switch f.Kind {
	case DropAck, DelayAck, Rebalance, Reorder:
	default:
		return fmt.Errorf("fault kind %q: expected one of %s, %s, %s, %s", f.Kind, DropAck, DelayAck, Rebalance, Reorder)
	}
	if f.EventID == "" {
		return fmt.Errorf("fault %s: the event id is empty; arm a fault for one event", f.Kind)
	}
	if f.Hold < 0 || f.Hold > MaxHold {
		return fmt.Errorf("fault %s: hold %s out of range; expected 0 (default %s) to %s", f.Kind, f.Hold, DefaultHold, MaxHold)
	}
	return nil
}

// HoldOrDefault returns Hold, or DefaultHold when it is zero.
func (f Fault) HoldOrDefault() time.Duration {
	if f.Hold > 0 {
		return f.Hold
	}
	return DefaultHold
}
