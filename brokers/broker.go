package brokers

import (
	"context"
	"errors"
	"time"
)

// The placeholders every broker fills in, for the consumer's command line
// and environment. Values are strings; durations are Go durations ("2s").
const (
	// PlaceholderURL is the address the consumer connects to: a nats://,
	// a Kafka host:port list, a redis:// or an amqp:// URL. It points at
	// the broker's fault proxy where the broker has one, so that acks can
	// be observed and dropped.
	PlaceholderURL = "broker.url"
	// PlaceholderKind is the broker's name: "nats", "kafka", "redis" or
	// "rabbitmq".
	PlaceholderKind = "broker.kind"
	// PlaceholderTopic is where events are published: a NATS subject, a
	// Kafka topic, a Redis stream key, a RabbitMQ queue.
	PlaceholderTopic = "broker.topic"
	// PlaceholderStream is the NATS JetStream stream that holds the topic
	// (equal to the topic elsewhere).
	PlaceholderStream = "broker.stream"
	// PlaceholderGroup is the consumer group: a JetStream durable consumer,
	// a Kafka consumer group, a Redis Streams group. Every instance of the
	// consumer joins it, so that each event goes to one member.
	PlaceholderGroup = "broker.group"
	// PlaceholderAckWait is how long the broker waits for an ack before it
	// redelivers (JetStream AckWait, RabbitMQ consumer timeout); for Redis
	// Streams, the idle time after which a member should claim another
	// member's pending entries; for Kafka, the group session timeout.
	PlaceholderAckWait = "broker.ack_wait"
)

// HeaderEventID is the header (NATS, Kafka, RabbitMQ) or stream field
// (Redis) that carries Event.ID on every published message. RabbitMQ also
// sets the message-id property to it.
const HeaderEventID = "Event-Id"

// HeaderEntity is the header or field that carries Event.Key.
const HeaderEntity = "Event-Entity"

// ErrUnsupported is returned (wrapped) by a broker asked for a fault or a
// publish mode it cannot provide.
var ErrUnsupported = errors.New("not supported by this broker")

// ErrClosed is returned (wrapped) by a broker used after Close.
var ErrClosed = errors.New("broker closed")

// Event is one message for the consumer under test.
type Event struct {
	// ID identifies the event; consumers de-duplicate by it, and it is the
	// idempotency key they should pass downstream. Required.
	ID string
	// Key is the entity the event is about (an order, an account). Events
	// with the same Key keep their publish order where the broker orders
	// anything (Kafka's partition key); empty means ID.
	Key string
	// Payload is the message body, typically JSON carrying the intent's
	// marker.
	Payload []byte
	// Headers are extra message headers (Redis: extra stream fields).
	Headers map[string]string
}

// Entity returns Key, or ID when Key is empty.
func (e Event) Entity() string {
	if e.Key != "" {
		return e.Key
	}
	return e.ID
}

// Receipt is what the broker said about one publish.
type Receipt struct {
	// Duplicate is true when the broker recognised the publish as a
	// duplicate of an earlier one and stored nothing (JetStream with
	// Nats-Msg-Id inside its duplicate window).
	Duplicate bool
	// Position is where the broker stored the message: "seq 7" (NATS),
	// "0@12" (Kafka partition@offset), "1700000000000-0" (Redis), or
	// "" where the broker has no position (RabbitMQ).
	Position string
}

// Capabilities says what a broker can do.
type Capabilities struct {
	// DedupHeader is the broker's own de-duplication header for retried
	// publishes ("Nats-Msg-Id"), or "" if it has none: then only the
	// consumer can de-duplicate a producer's retry.
	DedupHeader string
	// Groups is true when the broker balances a consumer group's members
	// and can rebalance them (Kafka).
	Groups bool
	// Faults lists the fault kinds Arm accepts.
	Faults []FaultKind
}

// Supports reports whether Arm accepts faults of kind k.
func (c Capabilities) Supports(k FaultKind) bool {
	for _, f := range c.Faults {
		if f == k {
			return true
		}
	}
	return false
}

// Broker is a real message broker on loopback, started for one run and
// provisioned with one topic and one consumer group. Its methods are safe
// for concurrent use.
type Broker interface {
	// Name returns "nats", "kafka", "redis" or "rabbitmq".
	Name() string
	// Placeholders returns the values of the Placeholder* names.
	Placeholders() map[string]string
	// Capabilities says which faults and publish modes it supports.
	Capabilities() Capabilities
	// Publish sends ev once and returns once the broker has stored it.
	Publish(ctx context.Context, ev Event) (Receipt, error)
	// PublishAgain sends ev again, as a producer that retried its publish
	// would. With dedup, the message carries the broker's own
	// de-duplication header (Capabilities.DedupHeader), so that the broker
	// may drop it; a broker without one returns ErrUnsupported.
	PublishAgain(ctx context.Context, ev Event, dedup bool) (Receipt, error)
	// Arm installs fault f, for one event.
	Arm(f Fault) error
	// Log is the record of what happened to each event: published,
	// delivered, acked, dropped acks.
	Log() *Log
	// Close stops the broker and removes every trace of it (processes,
	// temporary directories). It is safe to call more than once.
	Close() error
}

// CopiesPublisher is a Broker that can store n copies of an event at
// once, in one write, so that a consumer which reads its deliveries in
// batches (a Kafka poll) gets the copies in one batch: published one at
// a time, a consumer waiting for records may get the first alone, and
// copies processed side by side never meet. The copies carry no
// de-duplication header.
type CopiesPublisher interface {
	Broker
	PublishCopies(ctx context.Context, ev Event, n int) ([]Receipt, error)
}

// Options are the settings every broker understands. The zero value is
// ready to use.
type Options struct {
	// Topic names the topic, stream or queue; empty means DefaultTopic.
	Topic string
	// Group names the consumer group; empty means DefaultGroup.
	Group string
	// AckWait is the broker's redelivery deadline (see PlaceholderAckWait);
	// zero means DefaultAckWait.
	AckWait time.Duration
	// Partitions is the number of partitions of the Kafka topic; zero
	// means 1. Other brokers ignore it.
	Partitions int
	// StartTimeout bounds how long starting the broker may take; zero
	// means DefaultStartTimeout.
	StartTimeout time.Duration
}

// Defaults for Options.
const (
	DefaultTopic        = "events"
	DefaultGroup        = "consumers"
	DefaultAckWait      = 2 * time.Second
	DefaultStartTimeout = 60 * time.Second
)

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.Topic == "" {
		o.Topic = DefaultTopic
	}
	if o.Group == "" {
		o.Group = DefaultGroup
	}
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	return o
}

// TB is the part of *testing.T and *testing.B that the brokers' Must
// helpers use.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Cleanup(func())
}
