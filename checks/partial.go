package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// MarkPartial marks the score of every target of r as partial when the run was
// restricted (Meta.Only) to fewer checks than the rubric needs for it: such
// a score is not computed, since a check that did not run would show
// nothing either way. harness.Merge calls it after re-scoring; a caller
// that sets Meta.Only after harness.Verify calls it itself.
func MarkPartial(r *record.Result) {
	if len(r.Meta.Only) == 0 {
		return
	}
	for i := range r.Targets {
		markPartial(&r.Targets[i], r.Meta.Only)
	}
}

func markPartial(t *record.TargetResult, only []string) {
	if t.Error != "" {
		return
	}
	ran := map[string]bool{}
	for _, id := range only {
		ran[id] = true
	}
	if t.Record != nil {
		for _, id := range NotApplicable(t.Record.Target.Caps()) {
			ran[id] = true // needed by no level for this kind of target
		}
	}
	missing := 0
	for _, l := range Rubric() {
		for _, id := range l.Needs {
			if !ran[id] {
				missing++
			}
		}
	}
	if missing == 0 {
		return
	}
	t.Score = record.ScoreResult{
		Partial: true,
		Reason: fmt.Sprintf("partial score, not computed: only %s ran (--only), not the %s the score also needs; %s",
			strings.Join(only, ", "), plural(missing, "other check", "other checks"), plural(len(t.Findings), "finding", "findings")),
	}
}
