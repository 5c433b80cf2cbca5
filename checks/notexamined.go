package checks

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// FaultOwner returns the id of the check that judges intents retried after
// a fault of class c: the engine names it when it records that a fault of
// that class could not be injected (record.Record.Unexamined).
func FaultOwner(c faults.Class) string { return faultOwner(c) }

// unable says, for the checks whose skip means the adapter lacks a
// capability they need, why; "" when it has it.
var unable = map[string]func(record.Capabilities) string{
	CheckConcurrentDuplicates: func(c record.Capabilities) string {
		if !c.Burst {
			return "the adapter cannot send bursts"
		}
		return ""
	},
}

// NotExamined returns what the run recorded in rec did not examine, given
// the verdicts of its checks and their findings: what the engine
// recorded as it ran (faults it could not inject, faults armed that
// never fired), the faults whose attempt was answered with a final
// refusal and never retried (record.CauseRefused), then every check
// that applies to the target but was skipped, with its note as the
// reason. Checks that do not apply to the target's kind or conventions
// are not listed: they have nothing to examine in any run.
func NotExamined(rec *record.Record, results []record.CheckResult, findings []record.Finding) []record.Unexamined {
	if rec == nil {
		return nil
	}
	out := append([]record.Unexamined(nil), rec.Unexamined...)
	// A fault met by a final refusal is listed unless a finding of its
	// check at its operation, under that fault, has said what the
	// refusal showed (an intent that never succeeded): a check failed by
	// another fault has not examined this one. One left out was not run
	// at all.
	refused := refusedFaults(rec)
	for _, r := range results {
		if r.Note == "disabled" {
			continue
		}
		for _, u := range refused[r.ID] {
			if r.Status == record.StatusFail && slices.ContainsFunc(findings, func(f record.Finding) bool {
				return f.Check == u.Check && f.Operation == u.Operation && f.Fault == u.Fault
			}) {
				continue
			}
			out = append(out, u)
		}
	}
	if u, ok := identityUnseen(rec, results); ok {
		out = append(out, u)
	}
	covered := map[string]bool{}
	for _, u := range out {
		covered[u.Check] = true
	}
	caps := rec.Target.Caps()
	byID := map[string]Invariant{}
	for _, c := range registry {
		byID[c.ID] = c
	}
	for _, r := range results {
		c, ok := byID[r.ID]
		if !ok || r.Status != record.StatusSkip || !c.applies(caps) || covered[r.ID] {
			continue
		}
		u := record.Unexamined{Check: r.ID, Cause: record.CauseNothing, Reason: r.Note}
		switch {
		case r.Note == "disabled":
			u.Cause, u.Reason = record.CauseDisabled, "disabled in this run"
		case unable[r.ID] != nil && unable[r.ID](caps) != "":
			u.Cause, u.Reason = record.CauseUnsupported, unable[r.ID](caps)
		case len(c.Faults) > 0 && strings.HasPrefix(r.Note, unsupportedPrefix):
			// A record made before the engine named the checks of the
			// faults it could not inject: the note lists them.
			u.Cause = record.CauseUnsupported
			u.Reason = strings.TrimPrefix(r.Note, unsupportedPrefix)
		}
		if u.Reason == "" {
			u.Reason = "nothing in the run concerns it"
		}
		out = append(out, u)
	}
	return out
}

// identityUnseen says, when replay.consistent passed, that no successful
// reply of a mutating operation carried an identity: the replays were
// compared by their status alone, most likely because the identity
// locator (identity:) points where the replies keep nothing.
func identityUnseen(rec *record.Record, results []record.CheckResult) (record.Unexamined, bool) {
	passed := false
	for _, r := range results {
		passed = passed || (r.ID == CheckReplayConsistent && r.Status == record.StatusPass)
	}
	if !passed {
		return record.Unexamined{}, false
	}
	replays := 0
	for i := range rec.Intents {
		in := &rec.Intents[i]
		if !in.Mutating {
			continue
		}
		oks := 0
		for _, a := range in.Attempts {
			if a.Outcome != record.OK {
				continue
			}
			if a.Identity != "" {
				return record.Unexamined{}, false
			}
			oks++
		}
		if oks > 1 {
			replays++
		}
	}
	if replays == 0 {
		return record.Unexamined{}, false
	}
	return record.Unexamined{Check: CheckReplayConsistent, Cause: record.CauseNothing,
		Reason: "the identity of a result: no successful reply carried one where the identity locator (identity:) looks, so replays were compared by their status alone; point identity: at the result's id (such as {json: id})"}, true
}
