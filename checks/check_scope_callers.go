package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

// A key belongs to the caller that chose it: two callers (two accounts,
// two API keys) that happen to send the same key make two requests. A
// store keyed by the key alone answers the second caller from the first
// one's record: with the first caller's stored reply (its data, and a
// success for a request that never ran), or with a 409/422 that refuses a
// request the second caller never made before. key.scope probes this when
// the target was given two callers' credentials (Capabilities.Callers).

// callerProbe sends a keyed intent as the first caller, then the same key
// with the same inputs (its own marker) as the second.
func callerProbe(op string) Probe {
	first := Fresh(record.RolePlain, op)
	first.UntilOK = true
	cross := Fresh(record.RoleOtherCaller, op)
	cross.KeyFrom, cross.InputsFrom, cross.Caller, cross.UntilOK = 0, 0, 1, true
	return Probe{Name: "the key of another caller", Steps: []Step{first, cross}}
}

// evalCallerScope judges the second caller's use of the first caller's
// key: only executing it, with an effect of its own, is right.
func evalCallerScope(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	judged := false
	for _, in := range intentsByRole(r, record.RoleOtherCaller) {
		origin := r.Intent(in.Related)
		if origin == nil || origin.FirstOK() == nil || len(in.Attempts) == 0 {
			continue // the first caller's use never completed: nothing to cross
		}
		judged = true
		if len(r.EffectsOf(in)) > 0 {
			continue // executed for the second caller: scoped
		}
		first := origin.FirstOK()
		if a := in.FirstOK(); a != nil {
			if (a.Identity != "" && a.Identity == first.Identity) || (a.Identity == "" && a.Body == first.Body) {
				fs = append(fs, record.Finding{
					Check: CheckKeyScope, Severity: record.Major, Operation: in.Operation,
					Message: fmt.Sprintf("%s: the same key sent by a second caller was answered with the first caller's stored reply (%d, %s) and nothing was done for the second: keys are not scoped to the caller, so one caller sees another's result and believes a request succeeded that never ran; key the store by caller and key",
						in.Operation, a.Status, nonEmpty(a.Identity, "the same body")),
					Evidence: evidence(r, origin, in),
				})
			}
			continue
		}
		last := in.Attempts[len(in.Attempts)-1]
		if last.Status == 409 || last.Status == 422 {
			fs = append(fs, record.Finding{
				Check: CheckKeyScope, Severity: record.Major, Operation: in.Operation,
				Message: fmt.Sprintf("%s: a second caller's first request with a key the first caller had used was refused (%d): keys are not scoped to the caller, so one caller's keys block (and reveal) another's requests; key the store by caller and key",
					in.Operation, last.Status),
				Evidence: evidence(r, origin, in),
			})
		}
	}
	return fs, judged
}
