// Package nats is the NATS JetStream broker for idemcheck: a real NATS
// server embedded in the process (github.com/nats-io/nats-server/v2), with
// JetStream storing in a temporary directory, on a free loopback port.
//
// [Start] creates a stream named after the topic that captures the subject
// of the same name, and a durable pull consumer named after the group with
// explicit acks, AckWait (Options.AckWait) and unlimited deliveries. A
// consumer binds to it ({{broker.stream}}, {{broker.group}}) and acks each
// message once done; every instance that binds to the durable shares its
// messages, and an unacked message goes to whichever instance pulls next
// after AckWait.
//
// Each published message has the subject {{broker.topic}}, the headers
// Event-Id, Event-Entity and Nats-Msg-Id (the event id, so that JetStream
// drops a retried publish within [DuplicateWindow]), and the payload.
// PublishAgain with dedup false leaves Nats-Msg-Id out: a second message.
//
// {{broker.url}} is a NATS-protocol proxy in front of the server: it reads
// MSG/HMSG from the server (a delivery: its $JS.ACK reply subject gives the
// stream sequence and the delivery count) and PUB/HPUB to $JS.ACK.… from
// the consumer (+ACK, +NXT or an empty body: an ack; -NAK, +TERM: a nack;
// +WPI: progress, not recorded), and records them in the Log. The faults:
//
//   - DropAck: the consumer's next ack of the event is not passed on; the
//     server redelivers after AckWait.
//   - DelayAck: the ack is held until the server has delivered the event
//     again (or Fault.Hold passes), then passed on, late.
//   - Reorder: see brokers.Reorder.
//
// Rebalance is not supported: a JetStream pull consumer has no assignment
// to rebalance. A crash after the effect needs nothing armed: the message
// is redelivered AckWait after the dead instance pulled it.
package nats
