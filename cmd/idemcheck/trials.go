package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
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

// demoReplay is the demo's replay hint: the demo takes no file, and run
// with the same --out it runs the trials saved there first.
func demoReplay(rerun, outDir string) string {
	return rerun + " --out " + reports.ShellQuote(outDir)
}

// runReplay is run's replay hint: the replay command, with the
// configuration and the saved trials' file.
func runReplay(config, saved string) string {
	return "idemcheck replay -c " + reports.ShellQuote(config) + " " + reports.ShellQuote(saved)
}

// saveTrials writes the failing trials under outDir (atomically), and
// tells each trial finding how to replay it: replay of the saved file's
// path, or, without outDir, rerun (the same run again, same seed).
func saveTrials(res *record.Result, outDir string, replay func(path string) string, rerun string) error {
	saved := res.FailingTrials()
	replayCmd := rerun
	if outDir != "" && len(saved) > 0 {
		path := filepath.Join(outDir, failingTrialsFile)
		if err := reports.WriteFile(path, func(w io.Writer) error { return scenarios.Write(w, saved) }); err != nil {
			return harnessErr(err, "")
		}
		replayCmd = replay(path)
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
func trialNote(w io.Writer, res *record.Result) {
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
			if rate := sc.Rate(); rate != "" {
				flaky = " (" + rate + ")"
			}
			fmt.Fprintf(w, "%s: a generated trial failed%s; minimal counterexample:\n%s", t.Name, flaky, sc.Counterexample)
		}
	}
}

// checkSavedTrials checks the saved trials among opts against the limits
// the other options (from the configuration) set for each trial's target
// among specs (its kind's own faults included): a trial file is input,
// and is refused before the run if it asks for more than the
// configuration allows.
func checkSavedTrials(opts []harness.Option, specs []harness.Spec) error {
	var o harness.Options
	for _, opt := range opts {
		opt(&o)
	}
	for i, s := range o.Replay {
		spec := harness.Spec{Name: s.Target}
		for _, sp := range specs {
			if sp.Name == s.Target {
				spec = sp
			}
		}
		if err := s.Trial.Within(harness.TrialLimits(spec, opts...)); err != nil {
			return usageErr("saved trial %d (target %s): %v (delete the trials file, or run it with the configuration it was saved under)", i+1, s.Target, err)
		}
	}
	return nil
}
