package harness

import (
	"fmt"
	"strings"
)

// Level is one step of the agent-tool rubric, made behavioural: what a
// target must show to reach it.
type Level struct {
	Level     int
	Condition string
	// Forbids is the worst severity a finding may not have at this level.
	Forbids Severity
	// Needs are the checks that must have run (not skipped) to claim it:
	// the registered checks of this level that are not Optional.
	Needs []string
}

// Rubric returns the levels above 0, in order.
func Rubric() []Level {
	levels := []Level{
		{Level: 1, Condition: "mutating operations honour idempotency keys: no duplicated, lost or merged side effect", Forbids: Critical},
		{Level: 2, Condition: "every mutating operation honours its key under every fault, and every reply states its effect faithfully (effect field, consistent replays)", Forbids: Major},
		{Level: 3, Condition: "idempotency is enforced at framework level (key required, a reused key with another payload rejected) and every mutating operation has a dry run", Forbids: Minor},
	}
	for _, c := range registry {
		if !c.Optional && c.Level >= 1 && c.Level <= len(levels) {
			levels[c.Level-1].Needs = append(levels[c.Level-1].Needs, c.ID)
		}
	}
	return levels
}

// Score evaluates tr.Record, fills tr.Checks and tr.Findings, and sets
// tr.Score; a record the checks cannot judge sets tr.Error instead.
func Score(tr *TargetResult) {
	rec := tr.Record
	if rec == nil {
		return
	}
	if msg := untestable(rec); msg != "" {
		tr.Error = msg
		return
	}
	tr.Checks, tr.Findings = Evaluate(rec)
	counted := len(tr.Findings)
	if sc := tr.Scenario; sc != nil && len(sc.Findings) > 0 {
		failed := map[string]bool{}
		// Only what the probes did not show: a trial that restates a
		// probe finding adds nothing.
		for _, f := range novelFindings(tr.Findings, sc.Findings) {
			f.Trial, f.Flaky = true, sc.Flaky
			tr.Findings = append(tr.Findings, f)
			failed[f.Check] = true
		}
		if !sc.Flaky {
			counted = len(tr.Findings)
		}
		for i, c := range tr.Checks {
			if !failed[c.ID] || c.Status == StatusFail {
				continue
			}
			if sc.Flaky {
				// Seen once and never again: reported, labelled, and
				// not allowed to flip the verdict between runs.
				if c.Note == "" {
					tr.Checks[i].Note = "a generated trial failed it once; " + sc.Rate()
				}
				continue
			}
			tr.Checks[i] = CheckResult{ID: c.ID, Status: StatusFail, Note: "found by a generated trial (" + sc.Rate() + ")"}
		}
	}
	// Flaky findings come last, and count for nothing.
	tr.Score = score(tr.Checks, tr.Findings[:counted], notApplicable(registry, rec.Target.Caps()))
	if n := unattributed(rec); n > 0 {
		tr.Score.Reason += fmt.Sprintf(" (%d of %s carried no intent marker and could not be attributed)", n, plural(len(rec.Ledger), "recorded effect", "recorded effects"))
	}
}

// acknowledgedActs counts the mutating intents the target said it carried
// out (dry runs and reused keys aside): each should have left an effect.
func acknowledgedActs(rec *Record) int {
	n := 0
	for i := range rec.Intents {
		in := &rec.Intents[i]
		switch in.Role {
		case RolePlain, RoleTwin, RoleBurst, RoleNoKey:
			if in.Mutating && in.Acknowledged() {
				n++
			}
		}
	}
	return n
}

// unattributed counts the recorded effects that carry no intent's marker.
func unattributed(rec *Record) int {
	markers := map[string]bool{}
	for _, in := range rec.Intents {
		markers[in.Marker] = true
	}
	n := 0
	for _, e := range rec.Ledger {
		if !explained(e, markers) {
			n++
		}
	}
	return n
}

func score(checks []CheckResult, findings []Finding, notApplicable []string) ScoreResult {
	na := map[string]bool{}
	for _, id := range notApplicable {
		na[id] = true
	}
	status := map[string]Status{}
	for _, c := range checks {
		status[c.ID] = c.Status
	}
	level := 0
	for _, l := range Rubric() {
		for i, f := range findings {
			if f.Severity.Rank() >= l.Forbids.Rank() {
				return ScoreResult{Level: level, Reason: reason(level, l), Next: &Gap{
					Level: l.Level, Condition: l.Condition, Check: f.Check, Finding: i, Message: f.Message,
				}}
			}
		}
		for _, id := range l.Needs {
			if na[id] {
				continue
			}
			if st := status[id]; st != StatusPass && st != StatusFail {
				return ScoreResult{Level: level, Reason: reason(level, l), Next: &Gap{
					Level: l.Level, Condition: l.Condition, Check: id, Finding: -1,
					Message: fmt.Sprintf("%s did not run (skipped), so level %d cannot be shown", id, l.Level),
				}}
			}
		}
		level = l.Level
	}
	return ScoreResult{Level: 3, Reason: "every condition of level 3 holds: " + Rubric()[2].Condition}
}

func reason(level int, next Level) string {
	return fmt.Sprintf("score %d: level %d needs that %s", level, next.Level, next.Condition)
}

// untestable says why the record cannot be judged, or "".
func untestable(rec *Record) string {
	markers := map[string]bool{}
	for _, in := range rec.Intents {
		markers[in.Marker] = true
	}
	attributed := 0
	for _, e := range rec.Ledger {
		for _, m := range e.Markers {
			if markers[m] {
				attributed++
				break
			}
		}
	}
	if len(rec.Ledger) > 0 && attributed == 0 {
		return fmt.Sprintf("the fakes recorded %d effects but none carries an intent marker, so none can be attributed: make the target pass {{marker}} through to its downstream calls (e.g. in a description or metadata field)", len(rec.Ledger))
	}
	var broken []string
	for _, op := range rec.Target.Operations {
		tried, ok := 0, false
		var last *Attempt
		for i := range rec.Intents {
			in := &rec.Intents[i]
			if in.Operation != op.Name || (in.Role != RolePlain && in.Role != RoleRead) || in.Faulted() {
				continue // a faulted intent's retries are its check's to judge
			}
			for j := range in.Attempts {
				a := &in.Attempts[j]
				if a.Fault != "" {
					continue
				}
				tried++
				last = a
				// A safe operation's 4xx (a lookup of an id that does not
				// exist) is an answer like any other: the target works.
				if a.Outcome == OK || (!op.Mutating && a.Status >= 400 && a.Status < 500) {
					ok = true
				}
			}
		}
		if tried > 0 && !ok {
			what := fmt.Sprintf("answered %d %s", last.Status, short(strings.TrimSpace(last.Body), 120))
			if last.Error != "" {
				what = last.Error
			}
			broken = append(broken, fmt.Sprintf("%s never succeeded in %s (last: %s)", op.Name, plural(tried, "attempt", "attempts"), what))
		}
	}
	if len(broken) > 0 {
		what := rec.Target.Request
		if what == "" {
			what = "method, path, body"
		}
		return strings.Join(broken, "; ") + ": check the operation's " + what + " and inputs, and that the target is healthy"
	}
	// After the operations that never worked: a target that acknowledged
	// its work but whose effects nothing counted cannot be judged at all.
	if n := acknowledgedActs(rec); attributed == 0 && n > 0 {
		return fmt.Sprintf("no effect could be attributed: the target acknowledged %s but no fake or effect observer recorded any effect: point the target at the fakes (idemcheck fakes prints the environment to give a running service), make it pass {{marker}} through to its downstream calls, or declare observe: sources that count effects in its own data", plural(n, "mutating intent", "mutating intents"))
	}
	return ""
}
