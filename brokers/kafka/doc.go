// Package kafka is the Kafka broker for idemcheck: kfake
// (github.com/twmb/franz-go/pkg/kfake), a Kafka implementation that runs in
// the process and speaks the Kafka protocol to any client, on a free
// loopback port.
//
// [Start] creates the topic ({{broker.topic}}, Options.Partitions
// partitions, default 1). A consumer joins the group {{broker.group}} at
// {{broker.url}} (the seed brokers) and commits offsets once done;
// {{broker.ack_wait}} is the session timeout it should use, so that the
// group notices a dead member quickly (the broker accepts down to
// [MinSessionTimeout]). Each record has the key Event.Entity() (events for
// one entity share a partition and keep their order), the headers Event-Id
// and Event-Entity, and the payload as its value.
//
// Observation is through kfake's control hooks, which see every request
// before the cluster handles it: a Fetch from offset f means the member
// was handed every record below f (Delivered, recorded one fetch late; a
// fetch from below the previous position, after a rebalance or restart,
// delivers the records from there again; a commit past the fetch position
// is a delivery too); an OffsetCommit of the group covering a delivered
// event's offset is its ack (Acked). One commit acks every delivery of the
// event so far: a member that read the partition again and commits the
// same offset a second time acks nothing new, so Acked counts commits, not
// deliveries. The faults:
//
//   - DropAck: the offset commit that would cover the event is answered as
//     stored and not stored. Kafka redelivers nothing until the group
//     reads the partition afresh: at a rebalance (arm Rebalance) or when
//     the consumer restarts.
//   - Rebalance: once the event has been fetched (at once if it already
//     has been), the group's heartbeats are answered REBALANCE_IN_PROGRESS
//     until a member rejoins. A member that revokes its partitions on a
//     rebalance (an eager balancer) reads them again from the committed
//     offset, so an event still being processed is delivered again; a
//     cooperative member that keeps its partitions is not.
//   - Reorder: see brokers.Reorder.
//
// DelayAck is not supported: Kafka has no per-message ack deadline, so a
// late commit alone redelivers nothing. Nor is a de-duplicated publish:
// the idempotent producer only drops its own in-session retries.
package kafka
