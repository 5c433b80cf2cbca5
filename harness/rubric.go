package harness

import (
	"fmt"
	"strings"
)

// Level is one step of the rubric (seed 001, made behavioural): what a
// target must show to reach it.
type Level struct {
	Level     int
	Condition string
	// Forbids is the worst severity a finding may not have at this level.
	Forbids Severity
	// Needs are the checks that must have run (not skipped) to claim it.
	Needs []string
}

// Rubric returns the levels above 0, in order.
func Rubric() []Level {
	return []Level{
		{1, "mutating operations honour idempotency keys: no duplicated, lost or merged side effect", Critical,
			[]string{CheckRetrySequential, CheckExactlyOnce}},
		{2, "every mutating operation honours its key under every fault, and every reply states its effect faithfully (effect field, consistent replays)", Major,
			[]string{CheckRetryAfterFault, CheckConcurrentDuplicates, CheckEffectField, CheckReplayConsistent, CheckWebhookSignature, CheckWebhookOrder}},
		{3, "idempotency is enforced at framework level (key required, a reused key with another payload rejected) and every mutating operation has a dry run", Minor,
			[]string{CheckKeyRequired, CheckKeyMismatch, CheckDryRun}},
	}
}

var severityRank = map[Severity]int{Critical: 3, Major: 2, Minor: 1}

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
	if sc := tr.Scenario; sc != nil && len(sc.Findings) > 0 {
		failed := map[string]bool{}
		for _, f := range sc.Findings {
			f.Trial, f.Flaky = true, sc.Flaky
			tr.Findings = append(tr.Findings, f)
			failed[f.Check] = true
		}
		for i, c := range tr.Checks {
			if failed[c.ID] && c.Status != StatusFail {
				tr.Checks[i] = CheckResult{ID: c.ID, Status: StatusFail, Note: "found by a generated trial"}
			}
		}
	}
	na := rec.Target.NotApplicable
	if rec.Target.Kind != "webhook" {
		// Signatures and event order are webhook senders' conventions.
		na = union(na, []string{CheckWebhookSignature, CheckWebhookOrder})
	}
	tr.Score = score(tr.Checks, tr.Findings, na)
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
			if severityRank[f.Severity] >= severityRank[l.Forbids] {
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
				if a.Outcome == OK {
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
		what := "method, path, body"
		if rec.Target.Kind == "cli" {
			what = "arguments"
		}
		return strings.Join(broken, "; ") + ": check the operation's " + what + " and inputs, and that the target is healthy"
	}
	return ""
}
