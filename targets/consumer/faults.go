package consumer

import (
	"fmt"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/faults"
)

// Names of the redelivery faults. Each is armed for one intent's event and
// carried out through the broker (faults.RedeliveryFault).
const (
	NameDuplicatePublish      = "broker-duplicate-publish"
	NameDuplicatePublishDedup = "broker-duplicate-publish-dedup"
	NameLostAck               = "broker-lost-ack"
	NameLateAck               = "broker-late-ack"
	NameSlowConsumer          = "broker-slow-consumer"
	NameRebalance             = "broker-rebalance"
	NameReorder               = "broker-reorder"
	NameBatchCrash            = "broker-batch-crash"
)

// Fault is a redelivery fault: it makes the broker deliver the event of
// the attempt it is armed for again. It implements
// faults.RedeliveryFault.
type Fault struct {
	name string
	what string
}

var _ faults.RedeliveryFault = (*Fault)(nil)

// Name implements faults.Fault.
func (f *Fault) Name() string { return f.name }

// Redelivery implements faults.RedeliveryFault.
func (f *Fault) Redelivery() string { return f.what }

// RedeliveryFaults returns every redelivery fault, in the order a run
// tries them.
func RedeliveryFaults() []*Fault {
	return []*Fault{
		{NameDuplicatePublish, "the producer publishes the event again once the consumer has acknowledged it and nothing new of it has been seen for a moment (a retried publish), without the broker's de-duplication header"},
		{NameDuplicatePublishDedup, "the producer publishes the event again once the consumer has acknowledged it, with the broker's de-duplication header (Nats-Msg-Id)"},
		{NameLostAck, "the consumer's ack is lost on its way to the broker, which delivers the event again once its ack deadline passes"},
		{NameLateAck, "the consumer's ack is held until the broker has delivered the event again, then passed on"},
		{NameSlowConsumer, "the consumer's downstream call is slower than the broker's ack deadline, so the event is delivered again while the first delivery is still being processed"},
		{NameRebalance, "the consumer group rebalances while the event is being processed (its downstream call is slow), and the partition is read again from the last committed offset"},
		{NameReorder, "the event is held back until a later event of the same entity (one sequence number higher in " + HeaderEventSeq + ") has been published and acknowledged, then published: the consumer processes the later event first"},
		{NameBatchCrash, "the event is published as the first of a batch of events of the same operation and entity; the consumer is killed right after the event's effect, before it acknowledged it (or committed the batch's offsets), and the broker delivers the batch again to the restarted consumer"},
	}
}

// RegisterFaults registers every redelivery fault in r by its name, so
// that a configuration file's faults list may name them. A target that
// is not a consumer cannot take them, and says so.
func RegisterFaults(r *faults.Registry) {
	for _, f := range RedeliveryFaults() {
		if f.name == NameBatchCrash {
			r.Register(f.name, func() faults.Fault { c := *f; return BatchFault{&c} })
			continue
		}
		r.Register(f.name, func() faults.Fault { c := *f; return &c })
	}
}

// BatchFault is the fault NameBatchCrash: a redelivery fault that is
// also a crash after the effect, so that the harness kills the consumer
// at the event's effect and restarts it before the next attempt. It
// implements faults.RedeliveryFault and faults.CrashFault.
type BatchFault struct{ *Fault }

var _ faults.CrashFault = BatchFault{}

// CrashPoint implements faults.CrashFault: right after the effect.
func (BatchFault) CrashPoint() faults.CrashPoint { return faults.AfterEffect }

// BatchFillers is how many events of the same operation and entity are
// published right after the armed event, as one batch with it.
const BatchFillers = 2

// support says whether broker b can carry out fault f, and why not.
func support(b brokers.Broker, f *Fault) (bool, string) {
	caps := b.Capabilities()
	switch f.name {
	case NameDuplicatePublish:
		return true, ""
	case NameDuplicatePublishDedup:
		if caps.DedupHeader == "" {
			return false, fmt.Sprintf("%s has no de-duplication header for retried publishes", b.Name())
		}
		return true, ""
	case NameLostAck:
		if b.Name() == "kafka" {
			return false, "a lost offset commit is redelivered by Kafka only at a rebalance or a restart: see broker-rebalance and the crash faults"
		}
		return need(b, caps, brokers.DropAck)
	case NameLateAck:
		return need(b, caps, brokers.DelayAck)
	case NameSlowConsumer:
		if redeliversSlow(b) {
			return true, ""
		}
		return false, fmt.Sprintf("%s delivers an event to another member only once the first has given it up (a claim, a rebalance): see broker-rebalance and broker-lost-ack", b.Name())
	case NameRebalance:
		return need(b, caps, brokers.Rebalance)
	case NameReorder, NameBatchCrash:
		return true, ""
	}
	return false, "unknown redelivery fault"
}

// redeliversSlow says whether b delivers an event again, to the same
// consumer or another, once its ack deadline passes while the first
// delivery is still being processed (NATS JetStream, RabbitMQ): a slow
// consumer (broker-slow-consumer, dep-stall) then meets a second
// delivery. Kafka and Redis streams leave the event with its consumer
// until it gives it up.
func redeliversSlow(b brokers.Broker) bool {
	switch b.Name() {
	case "nats", "rabbitmq":
		return true
	}
	return false
}

func need(b brokers.Broker, caps brokers.Capabilities, k brokers.FaultKind) (bool, string) {
	if caps.Supports(k) {
		return true, ""
	}
	return false, fmt.Sprintf("%s cannot %s", b.Name(), k)
}
