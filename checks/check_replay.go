package checks

import (
	"fmt"

	"github.com/idemcheck/idemcheck/record"
)

// replayConsistent: a caller that retried must be able to tell the
// replay is the first reply's result. A sender of events (a webhook's,
// a broker's: record.Capabilities.EventKeys) reads only whether a
// delivery succeeded, never a status among the successes or an
// identity, so the check does not apply to it.
var replayConsistent = Invariant{
	ID:        CheckReplayConsistent,
	Property:  "every replay returns the first reply's status and identity",
	Level:     2,
	Applies:   func(c record.Capabilities) bool { return !c.EventKeys },
	Unapplied: "not applicable: a sender of events reads only whether a delivery succeeded, not a status among the successes or an identity",
	Probes:    sequentialProbes,
	Eval:      evalReplayConsistent,
}

func evalReplayConsistent(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, append(keyedRoles, record.RoleNoKey)...) {
		if !in.Mutating || repeated(r.EffectsOf(in)) > 1 {
			// Retries that acted again are not replays: the duplicate is
			// the retry checks' (or key.required's) finding.
			continue
		}
		first := in.FirstOK()
		if first == nil {
			continue
		}
		for _, a := range in.Attempts[first.N:] {
			if a.Outcome != record.OK {
				continue
			}
			applicable = true
			var msg string
			switch {
			case a.Status != first.Status:
				msg = fmt.Sprintf("%s: a replay answered %d, the first reply %d", in.Operation, a.Status, first.Status)
			case first.Identity != "" && a.Identity != first.Identity:
				msg = fmt.Sprintf("%s: a replay returned %q, the first reply %q: the caller cannot tell they are the same result", in.Operation, a.Identity, first.Identity)
			default:
				continue
			}
			fs = append(fs, record.Finding{Check: CheckReplayConsistent, Severity: record.Major, Operation: in.Operation, Fault: firstFault(in), Message: msg, Evidence: evidence(r, in)})
			break
		}
	}
	return fs, applicable
}

// replaysRenamed says whether a replay of op one at a time (after the
// first success, with no new effect) returned another identity than the
// first reply: replay.consistent's finding. Copies of a burst that name
// several results are then the same flaw, met by those that came once
// the first was done, as many as timing let come.
func replaysRenamed(r *record.Record, op string) bool {
	for _, in := range intentsByRole(r, append(keyedRoles, record.RoleNoKey)...) {
		if in.Operation != op || !in.Mutating || repeated(r.EffectsOf(in)) > 1 {
			continue
		}
		first := in.FirstOK()
		if first == nil || first.Identity == "" {
			continue
		}
		for _, a := range in.Attempts[first.N:] {
			if a.Outcome == record.OK && !a.Burst && a.Identity != "" && a.Identity != first.Identity {
				return true
			}
		}
	}
	return false
}
