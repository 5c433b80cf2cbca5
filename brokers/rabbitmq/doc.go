// Package rabbitmq is the RabbitMQ broker for idemcheck: a private
// RabbitMQ node started from the distribution's rabbitmq-server script
// (Debian: /usr/lib/rabbitmq/bin/rabbitmq-server, or
// $IDEMCHECK_RABBITMQ_SERVER), not the system's service. Tests that need
// it skip, saying why, when it is not installed.
//
// A private node needs, all in a new temporary directory: its own Erlang
// port mapper (epmd, started as a child on a free loopback port and named
// to the node by ERL_EPMD_PORT, so that no system-wide epmd is started or
// used), its own node name (idemcheck-RANDOM@localhost), an Erlang cookie
// in its own HOME, its own configuration, database (RABBITMQ_MNESIA_BASE)
// and logs, the AMQP listener and the Erlang distribution port on
// 127.0.0.1, and no plugins. The node boots in seconds (about 20 s on a
// loaded two-core machine); Close stops it (SIGTERM to its process group,
// SIGKILL after a grace period), then its epmd, and removes the
// directory.
//
// [Start] declares the durable queue {{broker.topic}} and sets the node's
// consumer_timeout to {{broker.ack_wait}}, checked every tenth of it (the
// channel tick, once a minute by default): a delivery a consumer has not
// acked in time makes the node close the consumer's channel with
// PRECONDITION_FAILED and requeue the message, which then goes to another
// consumer, or to the same one once it opens a channel again, flagged
// redelivered. Every message goes through the default exchange, persistent,
// with the message-id property and the Event-Id header set to the event
// id, the Event-Entity header, and the payload as its body. Consumers
// compete for the queue's messages: {{broker.group}} names nothing on the
// node.
//
// {{broker.url}} (amqp://guest:guest@host:port/) is an AMQP 0-9-1 proxy in
// front of the node: basic.deliver or basic.get-ok and the content header
// after it is a delivery (the event id is the message-id), basic.ack from
// the consumer an ack, basic.nack and basic.reject nacks; delivery tags are
// tracked per channel, and the deliveries still unsettled when a channel
// or the connection closes are recorded as nacked (the node requeues
// them). The faults:
//
//   - DropAck: the consumer's basic.ack covering the event is not passed
//     on; the node redelivers once the consumer timeout closes the
//     channel.
//   - DelayAck: the ack is held until the event has been delivered again
//     (or Fault.Hold passes), then passed on if its channel is still
//     open; an ack for a channel the node has closed is lost, as it would
//     be on the wire.
//   - Reorder: see brokers.Reorder.
//
// Rebalance is not supported (nothing is assigned to a queue's
// consumers), nor is a de-duplicated publish (the node stores every
// publish; de-duplication is only a plugin).
package rabbitmq
