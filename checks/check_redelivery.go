package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

var consumerRedelivery = Invariant{
	ID:       CheckConsumerRedelivery,
	Property: "a queue consumer turns every redelivery of an event (a lost or late ack, a rebalance, a slow consumer, a retried publish) into exactly one effect, and loses no event it acknowledged",
	Level:    2,
	Optional: true,
	Faults:   []faults.Class{faults.ClassRedelivery},
	Probes:   faultProbes,
	Applies:  func(c record.Capabilities) bool { return c.Redelivery },
	Skip:     faultSkipFor(CheckConsumerRedelivery, faults.ClassRedelivery),
	Eval:     evalConsumerRedelivery,
}

// evalConsumerRedelivery judges the events whose broker was made to
// deliver them again: one effect each. Each finding says what the broker
// did with the event. An event acknowledged without its effect is lost:
// exactly-once reports it, with what the broker did.
func evalConsumerRedelivery(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, keyedRoles...) {
		if !in.Mutating || owner(r, in) != CheckConsumerRedelivery {
			continue
		}
		applicable = true
		fault := firstFault(in)
		effs := r.EffectsOf(in)
		if repeated(effs) > 1 {
			fs = append(fs, record.Finding{
				Check: CheckConsumerRedelivery, Severity: record.Critical, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s the consumer caused %s (%s) for one event: it did not recognise the redelivered event id as processed (%s); what the broker did: %s",
					in.Operation, fault, plural(len(effs), "effect", "effects"), effectIDs(effs), keyDiagnosis(effs), brokerTrace(in)),
				Evidence: evidence(r, in),
			})
		}
	}
	return fs, applicable
}

// brokerTrace joins what the broker saw of the intent's event during each
// attempt (record.Reply.Broker), or says it recorded nothing.
func brokerTrace(in *record.Intent) string {
	var parts []string
	for _, a := range in.Attempts {
		if a.Broker != "" {
			parts = append(parts, fmt.Sprintf("attempt %d: %s", a.N, a.Broker))
		}
	}
	if len(parts) == 0 {
		return "nothing recorded"
	}
	return strings.Join(parts, "; ")
}

// hasBrokerTrace says whether a broker recorded anything of the intent
// (a queue consumer's).
func hasBrokerTrace(in *record.Intent) bool {
	for _, a := range in.Attempts {
		if a.Broker != "" {
			return true
		}
	}
	return false
}
