package record

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/scenarios"
)

// ScenarioResult is what the generated trials of one target showed.
type ScenarioResult struct {
	// Trials is how many generated trials ran (the runs that shrank a
	// failing one aside).
	Trials int `json:"trials"`
	// Counterexample is the failing trial, if any: shrunk to a minimal
	// one, or as drawn when only that failed again on replay.
	Counterexample *scenarios.Trial `json:"counterexample,omitempty"`
	// Steps is the counterexample as a readable step list.
	Steps string `json:"steps,omitempty"`
	// Findings are what the counterexample made the checks report.
	Findings []Finding `json:"findings,omitempty"`
	// Record is the counterexample's run, for evidence and re-scoring.
	Record *Record `json:"record,omitempty"`
	// Replays is how many times the counterexample was run again
	// before it was reported, and Reproduced how many of those runs failed
	// the same checks: a timing-dependent failure shows its rate.
	Replays    int `json:"replays,omitempty"`
	Reproduced int `json:"reproduced,omitempty"`
	// Flaky is true when none of the replays failed the same way: the
	// failure was seen once and never again. Its findings are reported,
	// labelled flaky, and do not fail their checks or lower the score, so
	// the verdict does not flip between runs of one seed on it.
	Flaky bool `json:"flaky,omitempty"`
	// Elapsed is how long the generated trials ran, from the first's
	// start to the last's end (the shrinking and replays of a failing one
	// aside).
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	// Replayed lists saved trials that were run again first, and whether
	// they still fail.
	Replayed []ReplayedTrial `json:"replayed,omitempty"`
	// Stopped says why trials stopped early (the budget), if they did.
	Stopped string `json:"stopped,omitempty"`
}

// ReplayedTrial is a saved failing trial run again at the start of a run.
type ReplayedTrial struct {
	Trial     scenarios.Trial `json:"trial"`
	StillFail bool            `json:"still_fails"`
	Checks    []string        `json:"checks,omitempty"`
}

// Rate says how often the counterexample failed again when replayed:
// "failed again in 2 of 3 replays", or, when flaky, that it never did and
// so counts for nothing; "" before any replay.
func (sc *ScenarioResult) Rate() string {
	switch {
	case sc == nil || sc.Replays == 0:
		return ""
	case sc.Flaky:
		return fmt.Sprintf("flaky: none of %s failed the same way, so it does not count against the score", plural(sc.Replays, "replay", "replays"))
	}
	return fmt.Sprintf("failed again in %d of %s", sc.Reproduced, plural(sc.Replays, "replay", "replays"))
}

// FailingTrials lists the failing trials of res, one per target whose
// generated trials failed, as trials to save and run again first
// (WithReplay). A flaky one (it never failed again on replay) is left
// out: run again once, it would count in full if it happened to fail.
func (res *Result) FailingTrials() []scenarios.Saved {
	var out []scenarios.Saved
	for _, t := range res.Targets {
		sc := t.Scenario
		if sc == nil || sc.Counterexample == nil || sc.Flaky {
			continue
		}
		var checks []string
		seen := map[string]bool{}
		for _, f := range sc.Findings {
			if !seen[f.Check] {
				seen[f.Check] = true
				checks = append(checks, f.Check)
			}
		}
		out = append(out, scenarios.Saved{Target: t.Name, Seed: res.Seed, Trial: *sc.Counterexample, Checks: checks})
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
