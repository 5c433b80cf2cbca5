package record

import "fmt"

// Validate checks the numbers of a result read from outside (a
// result.json) that say where something is: attempt numbers, intent ids,
// scores and the finding a score gap names. A result the harness wrote
// always passes; one that fails would make a renderer or a re-score index
// out of range. The error names the field, e.g.
// "targets[0].record.intents[3].attempts[1].n: 7, expected 2".
func (r *Result) Validate() error {
	top := TopScore
	for i := range r.Targets {
		t := &r.Targets[i]
		at := fmt.Sprintf("targets[%d]", i)
		if t.Score.Level < 0 || t.Score.Level > top {
			return fmt.Errorf("%s.score.level: %d, expected 0 to %d", at, t.Score.Level, top)
		}
		if g := t.Score.Next; g != nil {
			if g.Level < 1 || g.Level > top {
				return fmt.Errorf("%s.score.next.level: %d, expected 1 to %d", at, g.Level, top)
			}
			if g.Finding < -1 || g.Finding >= len(t.Findings) {
				return fmt.Errorf("%s.score.next.finding: %d, expected -1 (none) or the index of one of its %d findings", at, g.Finding, len(t.Findings))
			}
		}
		if t.Record != nil {
			if err := validIntents(at+".record.intents", t.Record.Intents); err != nil {
				return err
			}
		}
		for j := range t.Findings {
			if err := validIntents(fmt.Sprintf("%s.findings[%d].evidence.intents", at, j), t.Findings[j].Evidence.Intents); err != nil {
				return err
			}
		}
	}
	return nil
}

func validIntents(at string, ins []Intent) error {
	for i := range ins {
		in := &ins[i]
		if in.ID < 1 {
			return fmt.Errorf("%s[%d].id: %d, expected 1 or more", at, i, in.ID)
		}
		if in.Related < 0 {
			return fmt.Errorf("%s[%d].related: %d, expected 0 (none) or an intent id", at, i, in.Related)
		}
		for j := range in.Attempts {
			if n := in.Attempts[j].N; n != j+1 {
				return fmt.Errorf("%s[%d].attempts[%d].n: %d, expected %d (attempts are numbered from 1, in order)", at, i, j, n, j+1)
			}
		}
	}
	return nil
}
