package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

var mcpReadOnlyHint = Invariant{
	ID:       CheckMCPReadOnlyHint,
	Property: "an operation annotated read-only (readOnlyHint: true) causes no side effect",
	Level:    1,
	Optional: true,
	Applies:  func(c record.Capabilities) bool { return c.Annotations },
	Probes: func(pc ProbeContext) []Probe {
		a := pc.Op.Annotations
		if a == nil || !a.ReadOnly {
			return nil
		}
		if !pc.Op.Mutating {
			// The safe call safe.readonly makes is the one an agent makes
			// on the strength of the hint.
			return safeReadOnly.Probes(pc)
		}
		// The configuration says it is mutating: still call it as an
		// agent trusting the hint would, without a key.
		s := Fresh(record.RoleHinted, pc.Op.Name)
		s.NoKey, s.Repeat = true, 2
		return []Probe{{Name: "read-only hint", Steps: []Step{s}}}
	},
	Skip: func(*record.Record) string { return "no operation is annotated readOnlyHint: true" },
	Eval: evalMCPReadOnlyHint,
}

// evalMCPReadOnlyHint reports every effect caused by a call to an
// operation annotated read-only, whatever the probe that made it.
func evalMCPReadOnlyHint(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for i := range r.Intents {
		in := &r.Intents[i]
		op, ok := r.Target.Operation(in.Operation)
		if !ok || op.Annotations == nil || !op.Annotations.ReadOnly {
			continue
		}
		applicable = true
		effs := r.EffectsOf(in)
		if len(effs) == 0 {
			continue
		}
		ev := evidence(r, in)
		ev.Effects = effs
		fs = append(fs, record.Finding{
			Check: CheckMCPReadOnlyHint, Severity: record.Critical, Operation: in.Operation,
			Message: fmt.Sprintf("%s is annotated readOnlyHint: true, but %s caused %s (%s): agents call and retry read-only tools without asking; fix the tool or drop the hint",
				in.Operation, plural(len(in.Attempts), "call", "calls"), plural(len(effs), "side effect", "side effects"), effectIDs(effs)),
			Evidence: ev,
		})
	}
	return fs, applicable
}
