package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

var keyScope = Invariant{
	ID:       CheckKeyScope,
	Property: "a key is scoped to its operation and its caller: the same key sent to another mutating operation, or by another caller (with two or more callers configured), never gets the first one's stored reply",
	Level:    3,
	Optional: true, // a target with one mutating operation has no other to cross into
	Applies:  func(c record.Capabilities) bool { return c.Keys },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating {
			return nil
		}
		var out []Probe
		if other, ok := nextMutating(pc.Ops, pc.Op.Name); ok {
			first := Fresh(record.RolePlain, pc.Op.Name)
			first.UntilOK = true
			cross := Fresh(record.RoleOtherOperation, other)
			cross.KeyFrom = 0
			out = append(out, Probe{Name: "the key of another operation", Steps: []Step{first, cross}})
		}
		if pc.Caps.Callers >= 2 {
			out = append(out, callerProbe(pc.Op.Name))
		}
		return out
	},
	Skip: func(r *record.Record) string {
		mutating := 0
		for _, op := range r.Target.Operations {
			if op.Mutating {
				mutating++
			}
		}
		if r.Target.Caps().Callers >= 2 || mutating >= 2 {
			return "no key's first use completed, so there was nothing to cross"
		}
		return "the target has fewer than two mutating operations and fewer than two callers (callers: gives it more)"
	},
	Eval: func(r *record.Record) ([]record.Finding, bool) {
		fs, judged := evalKeyScope(r)
		cfs, cjudged := evalCallerScope(r)
		return append(fs, cfs...), judged || cjudged
	},
}

// nextMutating returns the mutating operation after name in ops, wrapping
// around, other than name itself.
func nextMutating(ops []record.Operation, name string) (string, bool) {
	at := -1
	for i, op := range ops {
		if op.Name == name {
			at = i
		}
	}
	for k := 1; k < len(ops); k++ {
		op := ops[(at+k+len(ops))%len(ops)]
		if op.Mutating && op.Name != name {
			return op.Name, true
		}
	}
	return "", false
}

// evalKeyScope judges a key sent to a second operation: executing it (the
// key scoped per operation) and refusing it (the key taken, 409/422) are
// both honest; answering with the first operation's stored reply tells the
// caller that its request succeeded when nothing was done for it.
func evalKeyScope(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleOtherOperation)
	judged := false
	for _, in := range ins {
		origin := r.Intent(in.Related)
		if origin == nil || origin.FirstOK() == nil {
			continue // the key's first use never completed: nothing stored to cross
		}
		judged = true
		a := in.FirstOK()
		if a == nil || len(r.EffectsOf(in)) > 0 {
			continue
		}
		first := origin.FirstOK()
		if a.Identity == "" || a.Identity != first.Identity {
			if a.Identity != "" || a.Body != first.Body {
				continue
			}
		}
		fs = append(fs, record.Finding{
			// Minor, as key.mismatch's silent replay: the caller reused a
			// key for another request, which the target should have
			// refused; it is the framework's enforcement that is missing.
			Check: CheckKeyScope, Severity: record.Minor, Operation: in.Operation,
			Message: fmt.Sprintf("%s: a key first used on %s was answered with %s's stored reply (%d, %s) and nothing was done: keys are not scoped to the operation, so the caller believes a request succeeded that never ran; store keys per operation (or refuse the reuse with 422)",
				in.Operation, origin.Operation, origin.Operation, a.Status, nonEmpty(a.Identity, "the same body")),
			Evidence: evidence(r, origin, in),
		})
	}
	return fs, judged
}

func nonEmpty(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
