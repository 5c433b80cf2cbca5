// Package redis is the Redis Streams broker for idemcheck: a real
// redis-server (found on PATH, or $IDEMCHECK_REDIS_SERVER) started as a
// child process on a free loopback port, in a temporary directory, without
// persistence. Tests that need it skip, saying why, when it is not
// installed.
//
// [Start] creates the stream {{broker.topic}} and the consumer group
// {{broker.group}} (reading from the start). Each event is one entry with
// the fields Event-Id, Event-Entity, payload, and one per header. A
// consumer reads with XREADGROUP, acks with XACK, reads its own pending
// entries again (XREADGROUP … 0) when it restarts under the same name, and
// claims entries that another member left idle for {{broker.ack_wait}}
// (XAUTOCLAIM): that claim is Redis Streams' redelivery, and the broker
// redelivers nothing by itself.
//
// {{broker.url}} (redis://host:port/0) is a RESP proxy in front of the
// server that pairs each reply with its command (Redis answers a
// connection's commands in order; RESP2 and RESP3 both): the entries in
// the replies to XREADGROUP, XCLAIM and XAUTOCLAIM are deliveries, and
// XACK on the stream is the ack. An entry delivered again before it was
// acked (claimed, or read again by its owner) is recorded as nacked, then
// delivered: Redis Streams has no negative ack, and a delivery left
// pending is over once the entry is delivered again. The faults:
//
//   - DropAck: the consumer's XACK of the event's entry acks the entry id
//     0-0 instead; the consumer gets an integer reply as usual, and the
//     entry stays pending until a member claims it.
//   - DelayAck: the same, and the broker acks the entry itself once the
//     event has been delivered again (claimed), or after Fault.Hold.
//   - Reorder: see brokers.Reorder.
//
// Rebalance is not supported (a Redis Streams group assigns nothing), nor
// is a de-duplicated publish (XADD stores every call).
package redis
