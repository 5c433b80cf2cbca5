package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/scenarios"
)

// failingTrialsFile is where --out keeps the minimal failing trials; the
// next run with the same --out runs them again first.
const failingTrialsFile = "failing-trials.json"

// trialFlags are the generated-trial flags of run and demo.
type trialFlags struct {
	trials int
	budget time.Duration
}

func (t *trialFlags) register(fs *flag.FlagSet, defaultTrials int) {
	fs.IntVar(&t.trials, "trials", defaultTrials, "generated trials per target after the probes (0: none)")
	fs.DurationVar(&t.budget, "budget", 2*time.Minute, "time generated trials may take per target")
}

func (t *trialFlags) check() error {
	if t.trials < 0 || t.trials > 100000 {
		return usageErr("--trials: %d is not a number of trials (0 to 100000)", t.trials)
	}
	if t.budget <= 0 {
		return usageErr("--budget: %s: expected a duration above zero, e.g. 60s", t.budget)
	}
	return nil
}

// options returns the harness options for the flags, with the trials saved
// under outDir (if any) to be run again first.
func (t *trialFlags) options(outDir string) ([]harness.Option, error) {
	opts := []harness.Option{harness.WithTrials(t.trials), harness.WithBudget(t.budget)}
	if outDir == "" {
		return opts, nil
	}
	saved, err := scenarios.Load(filepath.Join(outDir, failingTrialsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, usageErr("%v (delete it to start afresh)", err)
	default:
		opts = append(opts, harness.WithReplay(saved...))
	}
	return opts, nil
}

// failingTrials lists the counterexamples of res as saved trials.
func failingTrials(res *harness.Result) []scenarios.Saved {
	var out []scenarios.Saved
	for _, t := range res.Targets {
		sc := t.Scenario
		if sc == nil || sc.Counterexample == nil {
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

// saveTrials writes the failing trials under outDir (atomically), and
// tells each trial finding how to replay it: replayCmd plus the saved file,
// or, without outDir, rerun (the same run again, same seed).
func saveTrials(res *harness.Result, outDir, replayCmd, rerun string) error {
	saved := failingTrials(res)
	if outDir == "" {
		replayCmd = rerun
	}
	if outDir != "" && len(saved) > 0 {
		path := filepath.Join(outDir, failingTrialsFile)
		if err := reports.WriteFile(path, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(saved)
		}); err != nil {
			return harnessErr(err, "")
		}
		replayCmd = replayCmd + " " + path
	}
	for i := range res.Targets {
		for j := range res.Targets[i].Findings {
			f := &res.Targets[i].Findings[j]
			if f.Trial && f.Replay == "" && replayCmd != "" {
				f.Replay = replayCmd
			}
		}
	}
	return nil
}

// trialNote says on stderr what the trials found, for people.
func trialNote(w io.Writer, res *harness.Result) {
	for _, t := range res.Targets {
		sc := t.Scenario
		if sc == nil {
			continue
		}
		for _, r := range sc.Replayed {
			state := "passes now"
			if r.StillFail {
				state = "still fails"
			}
			fmt.Fprintf(w, "%s: a saved failing trial %s\n", t.Name, state)
		}
		if sc.Counterexample != nil {
			flaky := ""
			if sc.Flaky {
				flaky = " (flaky: its replay did not fail the same way)"
			}
			fmt.Fprintf(w, "%s: a generated trial failed%s; minimal counterexample:\n%s", t.Name, flaky, sc.Counterexample)
		}
	}
}
