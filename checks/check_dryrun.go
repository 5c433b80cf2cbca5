package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

var dryRun = Invariant{
	ID:       CheckDryRun,
	Property: "every mutating operation has a dry run that causes no effect, says would_*, and does not consume the key",
	Level:    3,
	Applies:  func(c record.Capabilities) bool { return c.DryRun },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating || !pc.Op.DryRun {
			return nil
		}
		d := Fresh(record.RoleDryRun, pc.Op.Name)
		d.DryRun = true
		real := Fresh(record.RoleAfterDryRun, pc.Op.Name)
		real.KeyFrom, real.InputsFrom = 0, 0
		return []Probe{{Name: "dry run, then the real request", Steps: []Step{d, real}}}
	},
	Eval: evalDryRun,
}

func evalDryRun(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, op := range r.Target.Operations {
		if !op.Mutating {
			continue
		}
		applicable = true
		if !op.DryRun {
			fs = append(fs, record.Finding{
				Check: CheckDryRun, Severity: record.Minor, Operation: op.Name,
				Message: fmt.Sprintf("%s offers no dry-run mode: a caller cannot preview a mutating call", op.Name),
			})
		}
	}
	for _, in := range intentsByRole(r, record.RoleDryRun) {
		effs := r.EffectsOf(in)
		a := in.Attempts[len(in.Attempts)-1]
		switch {
		case len(effs) > 0:
			fs = append(fs, record.Finding{
				Check: CheckDryRun, Severity: record.Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: a dry run caused %s (%s)", in.Operation, plural(len(effs), "side effect", "side effects"), effectIDs(effs)),
				Evidence: evidence(r, in),
			})
		case a.Outcome != record.OK:
			fs = append(fs, record.Finding{
				Check: CheckDryRun, Severity: record.Minor, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: the dry run was answered %s (%s)", in.Operation, answerOf(a), short(a.Body, 80)),
				Evidence: evidence(r, in),
			})
		case a.HasEffect && !strings.HasPrefix(a.Effect, "would_"):
			fs = append(fs, record.Finding{
				Check: CheckDryRun, Severity: record.Minor, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: the dry run's reply says effect %q: expected would_*", in.Operation, a.Effect),
				Evidence: evidence(r, in),
			})
		}
	}
	for _, in := range intentsByRole(r, record.RoleAfterDryRun) {
		if in.Acknowledged() && len(r.EffectsOf(in)) == 0 {
			fs = append(fs, record.Finding{
				Check: CheckDryRun, Severity: record.Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: the real request after a dry run with the same key was acknowledged but nothing happened: the dry run consumed the key", in.Operation),
				Evidence: evidence(r, r.Intent(in.Related), in),
			})
		}
	}
	return fs, applicable
}
