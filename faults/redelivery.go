package faults

// ClassRedelivery is the class of the faults that make a message broker
// deliver an event to its consumer again (RedeliveryFault).
const ClassRedelivery Class = "redelivery"

// RedeliveryFault is a fault that a queue consumer's adapter carries out
// through its broker: a lost or late ack, a group rebalance, a consumer
// slower than the ack deadline, a producer's retried publish. The harness
// does nothing around it; the adapter arms it for the attempt's event.
type RedeliveryFault interface {
	Fault
	// Redelivery says in a few words how the event comes again, for
	// reports ("the ack is lost; the broker redelivers after its ack
	// deadline").
	Redelivery() string
}
