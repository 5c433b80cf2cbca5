package reports

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

// withGate makes sure res carries a gate: the one the run applied
// (harness.ApplyGate), or else, for a result rendered straight from
// harness.Verify, the gate of o.MinScore. res must be the renderer's own
// copy (see cleaned): it is changed in place.
func withGate(res *record.Result, o Options) *record.Result {
	if res != nil && res.Gate == nil {
		harness.ApplyGate(res, o.MinScore, "")
	}
	return res
}

// ScoreLabel is a target's score for a table: "0" to "3", "partial" when
// the run was restricted to some checks (its score is not computed), or
// "error" when the harness could not test it.
func ScoreLabel(t record.TargetResult) string {
	switch {
	case t.Error != "":
		return "error"
	case t.Score.Partial:
		return "partial"
	}
	return fmt.Sprint(t.Score.Level)
}

// GateState is the run's verdict in one word: PASS (every target met the
// gate), FAIL (one did not) or ERROR (the harness could not test one).
func GateState(res *record.Result) string {
	switch {
	case res.Failed():
		return "ERROR"
	case res.Gate != nil && !res.Gate.Met:
		return "FAIL"
	}
	return "PASS"
}

// GateText says the run's gate for the text report, in lines of plain
// text without a trailing newline: the verdict and its reason, the gate
// that was applied, and with a baseline what changed since it. res is the
// result as a renderer has it (cleaned); a result without a gate is
// judged against o.MinScore.
func GateText(res *record.Result, o Options) string {
	res = withGate(cleaned(res), o)
	g := res.Gate
	var b strings.Builder
	if g.Replay {
		fmt.Fprintf(&b, "gate: %s (saved trials run again", GateState(res))
	} else {
		fmt.Fprintf(&b, "gate: %s (--min-score %d", GateState(res), g.MinScore)
	}
	if g.Baseline != "" {
		fmt.Fprintf(&b, ", baseline %s", g.Baseline)
	}
	fmt.Fprintf(&b, "): %s", g.Reason)
	for _, t := range res.Targets {
		if d := t.Baseline; d != nil {
			fmt.Fprintf(&b, "\n%s since the baseline: %s", t.Name, d.Summary())
			for _, k := range d.New {
				fmt.Fprintf(&b, "\n  new   %-8s %s", k.Severity, k)
			}
			for _, k := range d.Fixed {
				fmt.Fprintf(&b, "\n  fixed %-8s %s", k.Severity, k)
			}
		}
	}
	return b.String()
}

// countsForGate reports whether a failed check's findings count against
// the target's gate: the gate was not met and, with a baseline, the check
// has a new finding. The others are tolerated: within the gate.
func countsForGate(t record.TargetResult, check string) bool {
	if t.Gate == nil || t.Gate.Met {
		return false
	}
	if t.Baseline == nil {
		return true
	}
	for _, k := range t.Baseline.New {
		if k.Check == check {
			return true
		}
	}
	return false
}
