package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/faults"
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
			if c.Unapplied != "" {
				note = c.Unapplied
			}
			if keyed := caps; !caps.Keys {
				if keyed.Keys = true; c.applies(keyed) {
					note = keylessNote
					if caps.EventKeys {
						note = eventKeyNote
					}
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
		fs = mergeTries(rec, withPoints(fs))
		if unkeyed := caps; caps.Keys {
			if unkeyed.Keys = false; !c.applies(unkeyed) {
				fs = withoutKeylessOps(rec, fs) // a check of keys says nothing of an operation that takes none
			}
		}
		fs = keylessFindings(rec, fs)
		fs = eventFindings(rec, fs)
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
	results, findings = examine(rec, results, findings)
	return noteUnretried(rec, results), findings
}

// withPoints gives each finding made under a fault the downstream call
// that fault was armed at (record.Finding.Point), from the attempts of
// its evidence that met it, when the operation makes more than one.
func withPoints(fs []record.Finding) []record.Finding {
	for i := range fs {
		f := &fs[i]
		if f.Fault == "" || f.Point != "" {
			continue
		}
	find:
		for _, in := range f.Evidence.Intents {
			for _, a := range in.Attempts {
				if a.Fault == f.Fault && a.Point != nil && !a.NotFired {
					f.Point = a.Point.String()
					break find
				}
			}
		}
	}
	return fs
}

// faultSkipFor is the skip note of check id, which judges intents
// retried after faults of classes: the faults of those classes that
// could not be injected, those with one reason named together before it;
// else, for dependency faults, that none was tried, which a target that
// declares no dependency (dependencies:) is not; else that none of its
// class was.
func faultSkipFor(id string, classes ...faults.Class) func(*record.Record) string {
	return func(rec *record.Record) string {
		var reasons []string
		byReason := map[string][]string{}
		for _, f := range rec.Unsupported {
			if !faultOf(rec, f, id, classes) {
				continue
			}
			why := rec.UnsupportedWhy[f]
			if _, ok := byReason[why]; !ok {
				reasons = append(reasons, why)
			}
			byReason[why] = append(byReason[why], f)
		}
		if len(reasons) > 0 {
			parts := make([]string, len(reasons))
			for i, why := range reasons {
				parts[i] = strings.Join(byReason[why], ", ")
				if why != "" {
					parts[i] += " (" + why + ")"
				}
			}
			return unsupportedPrefix + strings.Join(parts, "; ")
		}
		if slices.Contains(classes, faults.ClassDependency) && !triedClass(rec, faults.ClassDependency) {
			if len(rec.Dependencies) > 0 {
				return "no dependency fault was tried: the run's faults leave them out (the target declares " + strings.Join(rec.Dependencies, ", ") + ")"
			}
			return "no dependency fault was tried: the target declares no dependency (dependencies:)"
		}
		return "no fault of its class was tried"
	}
}

// unsupportedPrefix starts the skip note of a check none of whose faults
// could be injected.
const unsupportedPrefix = "these faults could not be injected into this target: "

// faultOf reports whether the fault named f is one check id judges (of
// classes): as the engine recorded when it could not inject it, else by
// the built-in fault of that name; a fault neither names is counted in.
func faultOf(rec *record.Record, f, id string, classes []faults.Class) bool {
	for _, u := range rec.Unexamined {
		if u.Fault == f {
			return u.Check == id
		}
	}
	if x, err := faults.Builtin().New(f, nil); err == nil {
		return slices.Contains(classes, faults.ClassOf(x))
	}
	return true
}

// triedClass reports whether the run's faults include one of class c.
func triedClass(rec *record.Record, c faults.Class) bool {
	for _, f := range rec.Faults {
		if x, err := faults.Builtin().New(f, nil); err != nil || faults.ClassOf(x) == c {
			return true // one it cannot tell may be of c
		}
	}
	return false
}

// Novel returns the findings of fs that show something known does
// not: a trial finding of the same check, operation and fault (the cause)
// as a probe finding of at least its severity only restates it, and is
// left out. The checks that judge the retries of a faulted intent
// (retriedAfterFault) count as one there: which of them owns an intent
// depends on every fault it met, and a trial's intent may meet more than
// a probe's, so a duplicate under the same fault is the same finding.
// A duplicate named after a fault but made by a retry that met none is
// the same finding as the probes' retry.sequential of its operation.
func Novel(known, fs []record.Finding) []record.Finding {
	if len(known) == 0 {
		return fs
	}
	id := func(f record.Finding) string {
		k := f.Key()
		if f.Fault != "" && slices.Contains(retriedAfterFault, k.Check) {
			k.Check = "retries after a fault"
		}
		return k.ID()
	}
	worst := make(map[string]int, len(known))
	sequential := map[string]int{} // by operation
	for _, f := range known {
		worst[id(f)] = max(worst[id(f)], f.Severity.Rank())
		if f.Check == CheckRetrySequential {
			sequential[f.Operation] = max(sequential[f.Operation], f.Severity.Rank())
		}
	}
	var out []record.Finding
	for _, f := range fs {
		if r, ok := worst[id(f)]; ok && r >= f.Severity.Rank() {
			continue
		}
		if r, ok := sequential[f.Operation]; ok && r >= f.Severity.Rank() && f.Fault != "" && repeatedByPlainRetry(f) {
			// Named after a fault the intent met, made by a retry that
			// met none: the probes' retries one at a time showed it.
			continue
		}
		out = append(out, f)
	}
	return out
}

// repeatedByPlainRetry reports whether the duplicate f shows was made by
// an attempt without a fault: its intent's last effect landed while an
// attempt that met no fault, and was no burst's copy, was under way.
func repeatedByPlainRetry(f record.Finding) bool {
	for _, in := range f.Evidence.Intents {
		var last int64
		n := 0
		for _, e := range f.Evidence.Effects {
			if e.HasMarker(in.Marker) {
				n++
				last = max(last, e.Seq)
			}
		}
		if n < 2 {
			continue
		}
		for _, a := range in.Attempts {
			if a.LedgerBefore < last && last <= a.LedgerAfter {
				return a.Fault == "" && !a.Burst
			}
		}
		return false
	}
	return false
}
