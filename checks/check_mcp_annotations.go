package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

var mcpAnnotations = Invariant{
	ID:       CheckMCPAnnotations,
	Property: "every operation states its behaviour: mutating ones are annotated, deleting ones say destructiveHint, and the annotations agree with the configuration",
	Level:    3,
	Optional: true,
	Applies:  func(c record.Capabilities) bool { return c.Annotations },
	// The annotations are read from the target's description; the
	// sequential probe (shared) gives the record calls to show beside them.
	Probes: sequentialProbes,
	Skip:   func(*record.Record) string { return "the target has no operation" },
	Eval:   evalMCPAnnotations,
}

// evalMCPAnnotations judges what each operation declares, not what it did.
func evalMCPAnnotations(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	add := func(op, format string, args ...any) {
		fs = append(fs, record.Finding{Check: CheckMCPAnnotations, Severity: record.Minor, Operation: op, Message: fmt.Sprintf(format, args...)})
	}
	for _, op := range r.Target.Operations {
		a := op.Annotations
		switch {
		case a == nil && op.Mutating:
			add(op.Name, "%s has no annotations at all: agents cannot tell whether it is safe to call or to retry; annotate it (readOnlyHint, idempotentHint, destructiveHint)", op.Name)
		case a == nil:
			add(op.Name, "%s has no annotations, so agents take it as mutating; the configuration says it is safe: annotate it readOnlyHint: true", op.Name)
		case op.Disagree() && op.Mutating:
			add(op.Name, "%s is annotated readOnlyHint: true, but the configuration says it is mutating: one of them is wrong", op.Name)
		case op.Disagree():
			add(op.Name, "%s is not annotated readOnlyHint: true, but the configuration says it is safe: one of them is wrong", op.Name)
		}
		if a != nil && op.Deletes && !a.ReadOnly && a.Destructive == nil {
			add(op.Name, "%s deletes, but its annotations do not say destructiveHint: agents that ask before destroying things cannot tell", op.Name)
		}
	}
	return fs, len(r.Target.Operations) > 0
}
