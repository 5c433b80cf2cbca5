package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// Evaluate runs the enabled checks of rec (all of them when rec.Checks is
// empty) and returns their verdicts and findings.
func Evaluate(rec *record.Record) ([]record.CheckResult, []record.Finding) {
	return evaluate(registry, rec)
}

func evaluate(checks []Invariant, rec *record.Record) ([]record.CheckResult, []record.Finding) {
	enabled := map[string]bool{}
	for _, id := range rec.Checks {
		enabled[id] = true
	}
	var results []record.CheckResult
	var findings []record.Finding
	caps := rec.Target.Caps()
	for _, c := range checks {
		if !c.applies(caps) {
			note := NotApplicableNote(rec.Target.Kind)
			if keyed := caps; !caps.Keys {
				if keyed.Keys = true; c.applies(keyed) {
					note = keylessNote
				}
			}
			results = append(results, record.CheckResult{ID: c.ID, Status: record.StatusSkip, Note: note})
			continue
		}
		if len(enabled) > 0 && !enabled[c.ID] {
			results = append(results, record.CheckResult{ID: c.ID, Status: record.StatusSkip, Note: "disabled"})
			continue
		}
		fs, applicable := c.Eval(rec)
		fs = mergeTries(rec, fs)
		if unkeyed := caps; caps.Keys {
			if unkeyed.Keys = false; !c.applies(unkeyed) {
				fs = withoutKeylessOps(rec, fs) // a check of keys says nothing of an operation that takes none
			}
		}
		fs = keylessFindings(rec, fs)
		switch {
		case len(fs) > 0:
			results = append(results, record.CheckResult{ID: c.ID, Status: record.StatusFail, Note: fmt.Sprintf("%d finding(s)", len(fs))})
			findings = append(findings, fs...)
		case !applicable:
			note := "nothing in the run concerns it"
			if c.Skip != nil {
				note = c.Skip(rec)
			}
			results = append(results, record.CheckResult{ID: c.ID, Status: record.StatusSkip, Note: note})
		default:
			results = append(results, record.CheckResult{ID: c.ID, Status: record.StatusPass})
		}
	}
	return examine(rec, results, findings)
}

// faultSkip is the skip note of a check that judges intents retried after
// faults of its classes.
func faultSkip(rec *record.Record) string {
	if len(rec.Unsupported) > 0 {
		parts := make([]string, len(rec.Unsupported))
		for i, f := range rec.Unsupported {
			parts[i] = f
			if why := rec.UnsupportedWhy[f]; why != "" {
				parts[i] += " (" + why + ")"
			}
		}
		return "these faults could not be injected into this target: " + strings.Join(parts, "; ")
	}
	return "no fault of its class was tried"
}

// Novel returns the findings of fs that show something known does
// not: a trial finding of the same check, operation and fault (the cause)
// as a probe finding of at least its severity only restates it, and is
// left out.
func Novel(known, fs []record.Finding) []record.Finding {
	if len(known) == 0 {
		return fs
	}
	worst := make(map[string]int, len(known))
	for _, f := range known {
		id := f.Key().ID()
		worst[id] = max(worst[id], f.Severity.Rank())
	}
	var out []record.Finding
	for _, f := range fs {
		if r, ok := worst[f.Key().ID()]; !ok || r < f.Severity.Rank() {
			out = append(out, f)
		}
	}
	return out
}
