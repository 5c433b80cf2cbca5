package harness

import "fmt"

// evalExactlyOnce finds lost effects (an acknowledged intent with none)
// and single calls that acted twice. Duplicates caused by retries belong to
// the retry checks, merges of distinct keys to key.distinct.
func evalExactlyOnce(r *Record) ([]Finding, bool) {
	var fs []Finding
	applicable := false
	for _, in := range intentsByRole(r, RolePlain, RoleTwin) {
		if !in.Mutating {
			continue
		}
		applicable = true
		effs := r.EffectsOf(in)
		if len(in.Attempts) == 1 && len(effs) > 1 {
			fs = append(fs, Finding{
				Check: CheckExactlyOnce, Severity: Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: a single call caused %s (%s)", in.Operation, plural(len(effs), "effect", "effects"), effectIDs(effs)),
				Evidence: evidence(r, in),
			})
			continue
		}
		if !in.Acknowledged() || len(effs) > 0 {
			continue
		}
		if in.Role == RoleTwin {
			if o := r.Intent(in.Related); o != nil && len(r.EffectsOf(o)) > 0 {
				continue // merged: key.distinct reports it
			}
		}
		ok := in.FirstOK()
		msg := fmt.Sprintf("%s: acknowledged (%d", in.Operation, ok.Status)
		if ok.HasEffect {
			msg += fmt.Sprintf(", effect %q", ok.Effect)
		}
		msg += ") but no side effect was recorded: the intent was lost"
		if in.Faulted() {
			msg += fmt.Sprintf(" after %s (attempts: %s)", in.Attempts[0].Fault, statuses(in))
		}
		if len(r.Ledger) == 0 {
			msg += "; no effect at all reached the fakes: check that the target is pointed at them"
		}
		fs = append(fs, Finding{Check: CheckExactlyOnce, Severity: Critical, Operation: in.Operation, Fault: in.Attempts[0].Fault, Message: msg, Evidence: evidence(r, in)})
	}
	return fs, applicable
}
