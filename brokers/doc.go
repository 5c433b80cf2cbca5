// Package brokers starts real message brokers on loopback for idemcheck and
// makes them deliver an event more than once, on purpose, so that a
// message-queue consumer can be checked for exactly-once effects.
//
// Every mainstream broker delivers at least once: a consumer that dies
// after its side effect and before its ack, an ack lost on the way, a
// consumer slower than the broker's ack deadline, a group rebalance, a
// producer that retried its publish, each makes the same event arrive
// again. A consumer is safe to run when it turns every such redelivery
// into no second charge, email or row.
//
// # How it is driven
//
// One sub-package per broker starts it ([Broker]): nats (JetStream,
// embedded, the default), kafka (kfake, in process), redis (Redis Streams
// on a redis-server child process) and rabbitmq (a private rabbitmq-server
// instance). Each provisions one topic and one consumer group, and answers
// the placeholders a consumer's command line needs ({{broker.url}},
// {{broker.topic}}, {{broker.group}}, …; see Placeholder*). Where it can,
// the consumer's URL points at a protocol-aware fault proxy in front of the
// broker that sees every delivery and every ack.
//
// For one intent the harness:
//
//  1. arms a fault for the event, if any: b.Arm(Fault{Kind: DropAck,
//     EventID: id});
//  2. publishes it: b.Publish(ctx, Event{ID: id, Payload: …marker…}), and,
//     for a producer's retry, b.PublishAgain(ctx, ev, dedup);
//  3. waits for what it needs, with a deadline: b.Log().Wait(ctx, Acked,
//     id, 1) (the consumer finished with it), or the downstream fake's
//     ledger for the effect (and kills the consumer there, for a crash
//     after the effect and before the ack: the broker redelivers to the
//     restarted consumer after at most AckWait);
//  4. counts the effects per marker in the fakes' ledgers: exactly one per
//     event is the only right answer.
//
// The [Log] records what happened to each event (published, delivered,
// acked, dropped acks) so that a finding can say how the duplicate came
// about.
//
// # Faults by broker
//
// A duplicate publish (PublishAgain without dedup) and Reorder work on
// every broker; a crash of the consumer needs nothing armed. The rest:
//
//   - nats: DropAck (the proxy swallows the $JS.ACK publish; redelivered
//     after AckWait), DelayAck (held until redelivered, then passed on),
//     and PublishAgain with dedup (Nats-Msg-Id: JetStream drops it).
//   - kafka: DropAck (the offset commit is answered as stored and not
//     stored; redelivered at the next rebalance or restart) and Rebalance
//     (heartbeats answered REBALANCE_IN_PROGRESS once the event was
//     fetched).
//   - redis: DropAck (XACK rewritten to ack 0-0; the entry stays pending
//     until a member claims it) and DelayAck (the same, then the broker
//     acks it once claimed).
//   - rabbitmq: DropAck (basic.ack not passed on; the consumer timeout
//     closes the channel and requeues) and DelayAck (held; lost if the
//     node closed the channel meanwhile).
//
// Capabilities says the same at run time, and Arm refuses the rest with
// ErrUnsupported and the reason.
//
// # Events on the wire
//
// Every message carries the event id in the header (or Redis stream field)
// [HeaderEventID] and the entity in [HeaderEntity]; the payload is
// Event.Payload unchanged. Each broker's package says where they go.
package brokers
