package harness

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// GateSeverity is the least severe finding that keeps a target below
// minScore: the severity the rubric's level minScore forbids (critical for
// 0 and 1, major for 2, minor for 3). A partial score, or a comparison
// with a baseline, fails the gate on a finding this severe or worse; a
// critical finding always fails it.
func GateSeverity(minScore int) record.Severity {
	switch {
	case minScore >= 3:
		return record.Minor
	case minScore == 2:
		return record.Major
	}
	return record.Critical
}

// failsGate reports whether f fails a gate of minScore by itself.
func failsGate(f record.Finding, minScore int) bool {
	return f.Severity.Rank() >= GateSeverity(minScore).Rank()
}

// ApplyGate judges every target of r against minScore and sets Result.Gate and
// each TargetResult.Gate. A target meets the gate when:
//
//   - without a baseline, its score is at least minScore and it has no
//     critical finding; a partial score (see MarkPartial) is not judged,
//     only its findings are: one of GateSeverity(minScore) or worse fails;
//   - with a baseline (see Compare, which must have run first), its score
//     is not lower than the baseline's and no new finding is of
//     GateSeverity(minScore) or worse (or critical): what the baseline
//     already had does not fail it. A target the baseline did not have is
//     judged as without one.
//
// A target the harness could not test does not meet it.
func ApplyGate(r *record.Result, minScore int, baseline string) {
	g := &record.Gate{MinScore: minScore, Baseline: baseline, Met: true}
	if baseline != "" && r.Gate != nil {
		// What Compare found lost its history.
		g.NewTargets, g.GoneTargets = r.Gate.NewTargets, r.Gate.GoneTargets
	}
	var failed []string
	for i := range r.Targets {
		t := &r.Targets[i]
		t.Gate = judge(t, minScore)
		if !t.Gate.Met {
			g.Met = false
			failed = append(failed, t.Name+": "+t.Gate.Reason)
		}
	}
	switch {
	case !g.Met:
		g.Reason = strings.Join(failed, "; ")
	case baseline != "":
		g.Reason = fmt.Sprintf("nothing new since the baseline: no lower score and no new finding of severity %s or worse", GateSeverity(minScore))
	case minScore == 0:
		g.Reason = "no finding is critical (--min-score 0 gates on nothing else)"
	default:
		g.Reason = fmt.Sprintf("every target met --min-score %d and no finding is critical", minScore)
	}
	if h := TargetHistory(g); h != "" && baseline != "" {
		g.Reason += "; " + h
	}
	r.Gate = g
}

func judge(t *TargetResult, minScore int) *record.TargetGate {
	if t.Error != "" {
		return &record.TargetGate{Reason: "not tested, so not scored"}
	}
	sev := GateSeverity(minScore)
	d := t.Baseline
	findings := t.Findings
	if d != nil {
		findings = nil
		for _, f := range t.Findings {
			if d.IsNew(f) {
				findings = append(findings, f)
			}
		}
	}
	newWord := ""
	if d != nil {
		newWord = "new "
	}
	for _, f := range findings {
		if f.Severity == record.Critical || (t.Score.Partial || d != nil) && failsGate(f, minScore) {
			return &record.TargetGate{Reason: fmt.Sprintf("a %s%s finding (%s)", newWord, f.Severity, f.Key().String())}
		}
	}
	switch {
	case t.Score.Partial:
		return &record.TargetGate{Met: true, Reason: fmt.Sprintf("partial score, not judged; no %sfinding of severity %s or worse among the checks that ran", newWord, sev)}
	case d != nil && d.ScoreChange == record.ScoreLower:
		return &record.TargetGate{Reason: fmt.Sprintf("score %d, lower than the baseline's %d", t.Score.Level, d.BaselineScore)}
	case d != nil && t.Score.Level < minScore:
		return &record.TargetGate{Met: true, Reason: fmt.Sprintf("score %d is below --min-score %d but not lower than the baseline's, and no new finding of severity %s or worse", t.Score.Level, minScore, sev)}
	case t.Score.Level < minScore:
		return &record.TargetGate{Reason: fmt.Sprintf("score %d, below --min-score %d", t.Score.Level, minScore)}
	}
	return &record.TargetGate{Met: true, Reason: fmt.Sprintf("score %d meets --min-score %d", t.Score.Level, minScore)}
}
