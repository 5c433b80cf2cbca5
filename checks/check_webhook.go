package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

var webhookSignature = Invariant{
	ID:       CheckWebhookSignature,
	Property: "a delivery with a bad signature is refused (4xx), causes no effect, and does not consume the event id",
	Level:    2,
	Applies:  func(c record.Capabilities) bool { return c.Signatures },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating || !pc.Caps.Signatures {
			return nil
		}
		bad := Fresh(record.RoleBadSignature, pc.Op.Name)
		bad.BadSignature = true
		genuine := Fresh(record.RoleAfterBadSignature, pc.Op.Name)
		genuine.KeyFrom, genuine.InputsFrom, genuine.UntilOK = 0, 0, true
		return []Probe{{Name: "forged, then genuine delivery", Steps: []Step{bad, genuine}}}
	},
	Eval: evalWebhookSignature,
}

var webhookOrder = Invariant{
	ID:       CheckWebhookOrder,
	Property: "events delivered in another order than they were made are each processed exactly once",
	Level:    2,
	Applies:  func(c record.Capabilities) bool { return c.Reorder },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating || !pc.Caps.Reorder {
			return nil
		}
		var steps []Step
		for i := 0; i < 3; i++ {
			s := Fresh(record.RoleOutOfOrder, pc.Op.Name)
			s.UntilOK = true
			steps = append(steps, s)
		}
		return []Probe{{Name: "three events, delivered newest first", Steps: steps, Reversed: true}}
	},
	Eval: evalWebhookOrder,
}

// evalWebhookSignature judges forged deliveries and the genuine delivery
// of the same event that follows each.
func evalWebhookSignature(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	forged := intentsByRole(r, record.RoleBadSignature)
	for _, in := range forged {
		a := in.Attempts[0]
		effs := r.EffectsOf(in)
		var sev record.Severity
		var msg string
		switch {
		case len(effs) > 0:
			sev, msg = record.Critical, fmt.Sprintf("%s: a delivery with a bad signature was processed (%s): anyone who can reach the endpoint can forge events", in.Operation, effectIDs(effs))
		case a.Outcome == record.OK:
			sev, msg = record.Major, fmt.Sprintf("%s: a delivery with a bad signature was acknowledged (%d): the sender cannot tell a forgery was refused", in.Operation, a.Status)
		case a.Outcome == record.Info:
			sev, msg = record.Major, fmt.Sprintf("%s: a bad signature was answered %d instead of a 4xx: a sender will retry it for ever", in.Operation, a.Status)
		default:
			continue
		}
		fs = append(fs, record.Finding{Check: CheckWebhookSignature, Severity: sev, Operation: in.Operation, Fault: "bad-signature", Message: msg, Evidence: evidence(r, in)})
	}
	for _, in := range intentsByRole(r, record.RoleAfterBadSignature) {
		if in.Acknowledged() && len(r.EffectsOf(in)) == 0 {
			fs = append(fs, record.Finding{
				Check: CheckWebhookSignature, Severity: record.Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: the genuine delivery after a forged one with the same event id was acknowledged but not processed: the forgery consumed the event id", in.Operation),
				Evidence: evidence(r, r.Intent(in.Related), in),
			})
		}
	}
	return fs, len(forged) > 0
}

// evalWebhookOrder judges events delivered newest first: each must end
// processed exactly once.
func evalWebhookOrder(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleOutOfOrder)
	for _, in := range ins {
		effs := r.EffectsOf(in)
		switch {
		case repeated(effs) > 1:
			fs = append(fs, record.Finding{
				Check: CheckWebhookOrder, Severity: record.Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: an event delivered out of order was processed %d times (%s)", in.Operation, repeated(effs), effectIDs(effs)),
				Evidence: evidence(r, in),
			})
		case in.Acknowledged() && len(effs) == 0:
			fs = append(fs, record.Finding{
				Check: CheckWebhookOrder, Severity: record.Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: event %s was overtaken by a later event and acknowledged without being processed: the handler orders events by time instead of de-duplicating by id", in.Operation, in.Key),
				Evidence: evidence(r, in),
			})
		}
	}
	return fs, len(ins) > 0
}
