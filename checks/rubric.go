package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// Level is one step of the agent-tool rubric, made behavioural: what a
// target must show to reach it.
type Level struct {
	Level     int
	Condition string
	// Forbids is the worst severity a finding may not have at this level.
	Forbids record.Severity
	// Needs are the checks that must have run (not skipped) to claim it:
	// the registered checks of this level that are not Optional.
	Needs []string
}

// Rubric returns the levels above 0, in order.
func Rubric() []Level {
	levels := []Level{
		{Level: 1, Condition: "mutating operations honour idempotency keys: no duplicated, lost or merged side effect", Forbids: record.Critical},
		{Level: 2, Condition: "every mutating operation honours its key under every fault, and every reply states its effect faithfully (effect field, consistent replays)", Forbids: record.Major},
		{Level: 3, Condition: "idempotency is enforced at framework level (key required, a reused key with another payload rejected) and every mutating operation has a dry run", Forbids: record.Minor},
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
func Score(tr *record.TargetResult) {
	rec := tr.Record
	if rec == nil {
		return
	}
	if msg := Untestable(rec); msg != "" {
		tr.Error = msg
		return
	}
	tr.Checks, tr.Findings = Evaluate(rec)
	counted := len(tr.Findings)
	if sc := tr.Scenario; sc != nil && len(sc.Findings) > 0 {
		failed := map[string]bool{}
		// Only what the probes did not show: a trial that restates a
		// probe finding adds nothing.
		for _, f := range Novel(tr.Findings, sc.Findings) {
			f.Trial, f.Flaky = true, sc.Flaky
			tr.Findings = append(tr.Findings, f)
			failed[f.Check] = true
		}
		if !sc.Flaky {
			counted = len(tr.Findings)
		}
		for i, c := range tr.Checks {
			if !failed[c.ID] || c.Status == record.StatusFail {
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
			tr.Checks[i] = record.CheckResult{ID: c.ID, Status: record.StatusFail, Note: "found by a generated trial (" + sc.Rate() + ")"}
		}
	}
	// Flaky findings come last, and count for nothing.
	tr.Score = score(tr.Checks, tr.Findings[:counted], NotApplicable(rec.Target.Caps()), standIns(rec.Target.Caps()))
	if n := tr.Score.Next; n != nil && n.Finding >= 0 && !annotationCheck(n.Check) {
		// The condition says what the level asks; the finding says what
		// the target did instead. A reader of the reason alone must not
		// take what went unexamined (said next) for the cause.
		l := Rubric()[n.Level-1]
		tr.Score.Reason += "; blocked by " + blocker(tr.Findings[n.Finding], l)
		if more := alsoBlocking(tr.Findings[:counted], n.Finding, l); len(more) > 0 {
			// Fixing the first would not raise the score: say so.
			tr.Score.Reason += "; also by " + strings.Join(more, ", ")
		}
	}
	tr.NotExamined = NotExamined(rec, tr.Checks, tr.Findings)
	tr.Coverage = rec.Coverage()
	if s := record.LimitsSummary(tr.NotExamined); s != "" && tr.Score.Level > 0 && !tr.Score.Partial {
		// What was not examined could have found what lowers the score:
		// a caveat on the score, not its cause.
		tr.Score.Reason += " — " + LimitsLead + s
	}
	if n := unattributed(rec); n > 0 {
		// A sentence of its own: after a list of blocking checks, a
		// parenthesis would read as the last one's reason.
		tr.Score.Reason += fmt.Sprintf(". Note: %d of %s carried no intent marker and could not be attributed", n, plural(len(rec.Ledger), "recorded effect", "recorded effects"))
	}
}

// standIns are, for a target with capabilities caps, the checks that show
// what a check a level needs would (by check): a queue consumer's
// retries after a fault are the broker's redeliveries, which
// consumer.redelivery judges; retry.after-fault judges the ones after a
// fault of its downstream calls, which a consumer whose effects only
// observers count never makes. A consumer with fakes, which takes those
// faults, still needs retry.after-fault.
func standIns(caps record.Capabilities) map[string]string {
	if caps.Redelivery && caps.ObservedOnly {
		return map[string]string{CheckRetryAfterFault: CheckConsumerRedelivery}
	}
	return nil
}

func score(checks []record.CheckResult, findings []record.Finding, notApplicable []string, standIn map[string]string) record.ScoreResult {
	na := map[string]bool{}
	for _, id := range notApplicable {
		na[id] = true
	}
	status := map[string]record.Status{}
	unfired := map[string]bool{}
	notes := map[string]string{}
	for _, c := range checks {
		status[c.ID] = c.Status
		notes[c.ID] = c.Note
		unfired[c.ID] = c.Status == record.StatusSkip && strings.HasPrefix(c.Note, notExaminedNote)
	}
	level := 0
	for _, l := range Rubric() {
		for i, f := range findings {
			if f.Severity.Rank() >= l.Forbids.Rank() {
				why := reason(level, l)
				if annotationCheck(f.Check) {
					// The condition's words (keys, dry runs) are not what
					// holds a tool back whose annotations are missing or
					// wrong: say that.
					why = fmt.Sprintf("score %d: level %d needs annotations that say truthfully how each tool behaves; %s", level, l.Level, f.Message)
				}
				return record.ScoreResult{Level: level, Reason: why, Next: &record.Gap{
					Level: l.Level, Condition: l.Condition, Check: f.Check, Finding: i, Message: f.Message,
				}}
			}
		}
		for _, id := range l.Needs {
			if na[id] {
				continue
			}
			if st := status[standIn[id]]; standIn[id] != "" && (st == record.StatusPass || st == record.StatusFail) {
				continue
			}
			if st := status[id]; st != record.StatusPass && st != record.StatusFail {
				if s := standIn[id]; s != "" {
					// Neither ran: the stand-in is what would show it for
					// this target (a consumer counted only by observers
					// is retried by redeliveries, never by a fake's fault).
					id = s
				}
				msg := fmt.Sprintf("%s did not run (skipped), so level %d cannot be shown", id, l.Level)
				if unfired[id] {
					why := "a fault armed for it never acted"
					if strings.Contains(notes[id], refusedReason) {
						why = "its fault's attempt was answered with a final refusal, so no retry followed it"
					}
					msg = fmt.Sprintf("%s was not examined (%s), so level %d cannot be shown", id, why, l.Level)
				}
				return record.ScoreResult{Level: level, Reason: reason(level, l), Next: &record.Gap{
					Level: l.Level, Condition: l.Condition, Check: id, Finding: -1, Message: msg,
				}}
			}
		}
		level = l.Level
	}
	why := "every condition of level 3 holds: " + Rubric()[2].Condition
	if ids := conditionsNotApplicable(na); len(ids) > 0 {
		// The conditions name what this kind of target cannot be asked
		// (a webhook's sender chooses its key): say it was not shown.
		why = "every condition of level 3 that applies to this kind of target holds: no finding at all; " +
			"its framework-level conditions (" + Rubric()[2].Condition + ") do not apply to it, and were not checked: " + strings.Join(ids, ", ")
	}
	return record.ScoreResult{Level: 3, Reason: why}
}

// conditionChecks are the checks of what the rubric's conditions name
// (an effect field, a key required, a reused key rejected, a dry run).
var conditionChecks = []string{CheckDryRun, CheckEffectField, CheckKeyMismatch, CheckKeyRequired}

// conditionsNotApplicable lists the conditionChecks that do not apply to
// the target.
func conditionsNotApplicable(na map[string]bool) []string {
	var ids []string
	for _, id := range conditionChecks {
		if na[id] {
			ids = append(ids, id)
		}
	}
	return ids
}

// LimitsLead opens the part of a score's reason that names what the run
// did not examine and could have lowered the score.
const LimitsLead = "what was not examined could lower it: "

// blocker names the finding f that keeps a target below level l: its
// check, severity, operation and fault, whether a generated trial found
// it; and, for a finding of a check of a higher level than l, that l
// admits no finding of its severity, whatever the check: l's condition
// alone does not say so.
func blocker(f record.Finding, l Level) string {
	parts := []string{string(f.Severity)}
	if f.Operation != "" {
		parts = append(parts, "at "+f.Operation)
	}
	if f.Fault != "" {
		parts = append(parts, "under "+f.Fault)
	}
	if f.Trial {
		parts = append(parts, "found by a generated trial")
	}
	s := f.Check + " (" + strings.Join(parts, ", ") + ")"
	if checkLevel(f.Check) > l.Level {
		s += fmt.Sprintf(", a check of level %d: level %d admits no %s finding of any check", checkLevel(f.Check), l.Level, forbidden(l.Forbids))
	}
	return s
}

// alsoBlocking lists, once each and in order, the checks other than
// findings[first]'s whose findings also keep a target below level l.
func alsoBlocking(findings []record.Finding, first int, l Level) []string {
	var ids []string
	for _, f := range findings {
		if f.Severity.Rank() >= l.Forbids.Rank() && f.Check != findings[first].Check && !slices.Contains(ids, f.Check) {
			ids = append(ids, f.Check)
		}
	}
	return ids
}

// forbidden says which findings a level's Forbids rules out.
func forbidden(s record.Severity) string {
	switch s {
	case record.Critical:
		return "critical"
	case record.Major:
		return "major or critical"
	}
	return "minor or worse"
}

// checkLevel is the rubric level of the check id (0: unknown).
func checkLevel(id string) int {
	for _, c := range registry {
		if c.ID == id {
			return c.Level
		}
	}
	return 0
}

func reason(level int, next Level) string {
	return fmt.Sprintf("score %d: level %d needs that %s", level, next.Level, next.Condition)
}

// annotationCheck reports whether a check holds an operation to its
// annotations (mcp.*).
func annotationCheck(id string) bool {
	return id == CheckMCPAnnotations || id == CheckMCPIdempotentHint || id == CheckMCPReadOnlyHint
}
