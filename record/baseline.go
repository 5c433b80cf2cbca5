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
	// NewOperations are this target's operations the baseline's did not
	// have (renamed or added since): their findings have no history, so
	// they are new.
	NewOperations []string `json:"new_operations,omitempty"`
	// GoneOperations are the baseline's operations this target no longer
	// has (renamed or removed): their findings are not counted as fixed.
	GoneOperations []string `json:"gone_operations,omitempty"`
}

// History says which operations lost their history, as one phrase; ""
// when none did.
func (d *TargetDiff) History() string {
	var parts []string
	if len(d.NewOperations) > 0 {
		parts = append(parts, fmt.Sprintf("%s not in the baseline (renamed or added: %s without history)",
			wordList("operation", d.NewOperations), itsOrTheir(len(d.NewOperations), "its findings are new,", "their findings are new,")))
	}
	if len(d.GoneOperations) > 0 {
		parts = append(parts, fmt.Sprintf("%s of the baseline not in this run (renamed or removed: %s)",
			wordList("operation", d.GoneOperations), itsOrTheir(len(d.GoneOperations), "its findings are not counted as fixed", "their findings are not counted as fixed")))
	}
	return strings.Join(parts, "; ")
}

// wordList says "operation a" or "operations a, b".
func wordList(noun string, xs []string) string {
	if len(xs) == 1 {
		return noun + " " + xs[0]
	}
	return noun + "s " + strings.Join(xs, ", ")
}

func itsOrTheir(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
	if h := d.History(); h != "" {
		s += " (" + h + ")"
	}
	switch d.ScoreChange {
	case ScoreUnknown:
		return s + "; score not comparable (partial)"
	case ScoreSame:
		return s + fmt.Sprintf("; score as in the baseline (%d)", d.BaselineScore)
	}
	return s + fmt.Sprintf("; score %s than the baseline's %d", d.ScoreChange, d.BaselineScore)
}
