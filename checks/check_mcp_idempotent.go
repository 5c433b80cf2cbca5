package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

var mcpIdempotentHint = Invariant{
	ID:       CheckMCPIdempotentHint,
	Property: "an operation annotated idempotent (idempotentHint: true) called again with the same arguments and no key causes at most one effect",
	Level:    1,
	Optional: true,
	Applies:  func(c record.Capabilities) bool { return c.Annotations },
	Probes: func(pc ProbeContext) []Probe {
		a := pc.Op.Annotations
		if a == nil || !a.Idempotent || a.ReadOnly || !pc.Op.Mutating {
			return nil
		}
		// The same call twice, with no key: what an agent that trusts the
		// hint retries. key.required makes the same probe; it runs once.
		s := Fresh(record.RoleNoKey, pc.Op.Name)
		s.NoKey, s.Repeat = true, 2
		return []Probe{{Name: "no key", Steps: []Step{s}}}
	},
	Skip: func(*record.Record) string {
		return "no mutating operation is annotated idempotentHint: true"
	},
	Eval: evalMCPIdempotentHint,
}

// evalMCPIdempotentHint reports every keyless intent at an operation
// annotated idempotent whose identical calls caused more than one effect.
func evalMCPIdempotentHint(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, record.RoleNoKey) {
		op, ok := r.Target.Operation(in.Operation)
		if !ok || op.Annotations == nil || !op.Annotations.Idempotent || op.Annotations.ReadOnly {
			continue
		}
		applicable = true
		effs := r.EffectsOf(in)
		if repeated(effs) <= 1 {
			continue
		}
		ev := evidence(r, in)
		ev.Effects = effs
		fs = append(fs, record.Finding{
			Check: CheckMCPIdempotentHint, Severity: record.Critical, Operation: in.Operation,
			Message: fmt.Sprintf("%s is annotated idempotentHint: true, but %s with the same arguments caused %s (%s): an agent that retries on the strength of the hint duplicates; honour a key, or drop the hint",
				in.Operation, plural(len(in.Attempts), "call", "calls"), plural(len(effs), "effect", "effects"), effectIDs(effs)),
			Evidence: ev,
		})
	}
	return fs, applicable
}
