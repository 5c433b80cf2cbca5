package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

var safeReadOnly = Invariant{
	ID:       CheckSafeReadOnly,
	Property: "safe operations cause no effects",
	Level:    1,
	Optional: true,
	Probes: func(pc ProbeContext) []Probe {
		if pc.Op.Mutating {
			return nil
		}
		s := Fresh(record.RoleRead, pc.Op.Name)
		s.Repeat = 2
		return []Probe{{Name: "safe call", Steps: []Step{s}}}
	},
	Skip: func(*record.Record) string { return "the target has no safe operation" },
	Eval: evalSafeReadOnly,
}

// evalSafeReadOnly counts the effects attributed to a safe call's marker
// and every effect recorded while it ran (probes run one attempt at a time,
// so nothing else could have caused those).
func evalSafeReadOnly(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	known := map[string]bool{}
	for _, in := range r.Intents {
		known[in.Marker] = true
	}
	ins := intentsByRole(r, record.RoleRead)
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
			if (e.HasMarker(in.Marker) || (inWindow && !explained(e, known))) && !seen[e.Seq] {
				seen[e.Seq] = true
				effs = append(effs, e)
			}
		}
		if len(effs) == 0 {
			continue
		}
		ev := evidence(r, in)
		ev.Effects = effs
		fs = append(fs, record.Finding{
			Check: CheckSafeReadOnly, Severity: record.Critical, Operation: in.Operation,
			Message:  fmt.Sprintf("%s is declared safe but %s caused %s (%s): agents retry safe calls freely", in.Operation, plural(len(in.Attempts), "call", "calls"), plural(len(effs), "side effect", "side effects"), effectIDs(effs)),
			Evidence: ev,
		})
	}
	return fs, len(ins) > 0
}

// explained reports whether e carries the marker of some intent (then that
// intent, not whatever ran when it landed, caused it).
func explained(e fakes.Effect, known map[string]bool) bool {
	for _, m := range e.Markers {
		if known[m] {
			return true
		}
	}
	return false
}
