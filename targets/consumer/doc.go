// Package consumer is idemcheck's adapter for message-queue consumers:
// idemcheck starts a real broker (package brokers: NATS JetStream
// embedded by default, Kafka in process, Redis Streams, RabbitMQ) and the
// consumer's processes (Launch, Replicas members of one group), and each
// attempt publishes the intent as an event whose id is the intent's key,
// then waits until the consumer acknowledged it and every delivery it was
// given has ended. Effects are counted in the fakes, as for every kind.
//
// # Events
//
// Each [Event] of the [Config] is one operation: a message type (sent in
// the Event-Type header) and a payload template that carries {{marker}}
// and may use {{key}} and {{input.NAME}}. The event id travels in the
// Event-Id header (brokers.HeaderEventID), and in Config.IDHeader too if
// set. The consumer's command line and environment reach the broker
// through {{broker.url}}, {{broker.topic}}, {{broker.stream}},
// {{broker.group}}, {{broker.ack_wait}} and {{broker.kind}}.
//
// # Attempts and faults
//
// A retry publishes the event again (a producer's retry), unless the
// attempt before ended before the ack (the consumer was killed, or too
// slow): then it waits for the broker's own redelivery. The target is a
// harness.Crasher (every member is killed and restarted), a Burster
// (n copies of one event stored at once, their downstream calls held
// until every copy has reached the downstream or been given up, so that
// a consumer that processes deliveries concurrently processes them
// together in every run of a seed), and takes the redelivery faults
// ([Fault]: duplicate publishes with and without the broker's
// de-duplication header, lost and late acks, a consumer slower than the
// ack deadline, a rebalance, an event published after a later event of
// its entity, a batch redelivered after a crash in its middle
// ([BatchFault])) that its broker supports; it says why it
// cannot take the others (harness.FaultExplainer). Every reply carries
// what the broker saw of the event in record.Reply.Broker.
//
// # Brokers
//
// The brokers are linked in by importing package brokerset for its side
// effect (the idemcheck command does), so that a program that only reads
// configuration files links none of them.
//
// # Misbehaving consumers
//
// A consumer that exits on its own fails every later attempt at once with
// its output's end; one that acknowledges nothing fails every attempt
// after three that timed out: the target is then untestable, with that
// reason, within seconds.
package consumer
