package record

import (
	"fmt"
	"strings"
)

// ScoreChange says how a target's score moved since a baseline.
type ScoreChange string

// The score changes; ScoreUnknown when either score is partial.
const (
	ScoreSame    ScoreChange = "same"
	ScoreLower   ScoreChange = "lower"
	ScoreHigher  ScoreChange = "higher"
	ScoreUnknown ScoreChange = "unknown"
)

// TargetDiff is how a target compares with the same target in a baseline:
// its findings new, fixed (in the baseline, gone now) and still present,
// each listed once per check, operation and cause, and its score.
type TargetDiff struct {
	BaselineScore int          `json:"baseline_score"`
	ScoreChange   ScoreChange  `json:"score_change"`
	New           []FindingKey `json:"new"`
	Fixed         []FindingKey `json:"fixed"`
	Still         []FindingKey `json:"still"`
}

// IsNew reports whether f is one of the diff's new findings.
func (d *TargetDiff) IsNew(f Finding) bool {
	id := f.Key().ID()
	for _, k := range d.New {
		if k.ID() == id {
			return true
		}
	}
	return false
}

// Summary says the diff in a few words, e.g. "2 new, 1 fixed, 3 still
// present; score 1 (same)".
func (d *TargetDiff) Summary() string {
	parts := []string{fmt.Sprintf("%d new", len(d.New)), fmt.Sprintf("%d fixed", len(d.Fixed)), fmt.Sprintf("%d still present", len(d.Still))}
	s := strings.Join(parts, ", ")
	switch d.ScoreChange {
	case ScoreUnknown:
		return s + "; score not comparable (partial)"
	case ScoreSame:
		return s + fmt.Sprintf("; score as in the baseline (%d)", d.BaselineScore)
	}
	return s + fmt.Sprintf("; score %s than the baseline's %d", d.ScoreChange, d.BaselineScore)
}
