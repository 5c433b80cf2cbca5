package harness

import (
	"fmt"

	"github.com/idemcheck/idemcheck/fakes"
)

// evalSafeReadOnly counts the effects attributed to a safe call's marker
// and every effect recorded while it ran (probes run one attempt at a time,
// so nothing else could have caused those).
func evalSafeReadOnly(r *Record) ([]Finding, bool) {
	var fs []Finding
	ins := intentsByRole(r, RoleRead)
	for _, in := range ins {
		seen := map[int64]bool{}
		var effs []fakes.Effect
		for _, e := range r.Ledger {
			inWindow := false
			for _, a := range in.Attempts {
				if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
					inWindow = true
				}
			}
			if (inWindow || e.HasMarker(in.Marker)) && !seen[e.Seq] {
				seen[e.Seq] = true
				effs = append(effs, e)
			}
		}
		if len(effs) == 0 {
			continue
		}
		ev := evidence(r, in)
		ev.Effects = effs
		fs = append(fs, Finding{
			Check: CheckSafeReadOnly, Severity: Critical, Operation: in.Operation,
			Message:  fmt.Sprintf("%s is declared safe but %s caused %s (%s): agents retry safe calls freely", in.Operation, plural(len(in.Attempts), "call", "calls"), plural(len(effs), "side effect", "side effects"), effectIDs(effs)),
			Evidence: ev,
		})
	}
	return fs, len(ins) > 0
}
