package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/scenarios"
)

// cmdReplay runs saved failing trials (failing-trials.json, written by run
// --out) against the configuration's targets, and reports whether they
// still fail.
func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("replay")
	var c common
	var path string
	fset.StringVar(&path, "c", "", configUsage)
	fset.StringVar(&path, "config", "", configUsage)
	// The verdict is the saved trials', not a score's: no --min-score.
	c.noMinScore = true
	c.register(fset)
	files, err := parseInterspersed(fset, args)
	if err != nil {
		return flagError(fset, err, stdout)
	}
	switch {
	case len(files) == 0:
		return usageErr("replay: give the TRIALS.json to run again (the %s that run --out DIR writes): idemcheck replay [-c FILE] [flags] TRIALS.json", failingTrialsFile)
	case len(files) > 1:
		return usageErr("replay: one TRIALS.json at a time, not %d (%s): idemcheck replay [-c FILE] [flags] TRIALS.json", len(files), strings.Join(files, " "))
	}
	trials := files[0]
	if path, err = resolveConfig("replay", path); err != nil {
		return err
	}
	formats, err := c.formats()
	if err != nil {
		return err
	}
	unlock, err := c.lockOut()
	if err != nil {
		return err
	}
	defer unlock()
	saved, err := scenarios.Load(trials)
	if errors.Is(err, fs.ErrNotExist) {
		return usageErr("replay: %s does not exist (run with --out DIR writes DIR/%s when a trial fails)", trials, failingTrialsFile)
	}
	if err != nil {
		return usageErr("replay: %v", err)
	}
	file, specs, opts, err := loadConfig(ctx, path)
	if err != nil {
		return err
	}
	if err := file.CheckPrograms(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	want := map[string]bool{}
	var seed uint64
	for _, s := range saved {
		want[s.Target], seed = true, s.Seed
	}
	var keep []harness.Spec
	for _, s := range specs {
		if want[s.Name] {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return usageErr("replay: none of the saved trials' targets is in %s", path)
	}
	if s, err := c.resolveSeed(&seed); err == nil {
		seed = s
	}
	meta := configMeta("replay", file)
	secrets := configSecrets(file)
	c.redactWith(secrets)
	opts = append(opts, harness.WithSeed(seed), harness.WithTrials(0), harness.WithReplay(saved...), progressTo(c.quiet, stderr, secrets...))
	if err := checkSavedTrials(opts, keep); err != nil {
		return err
	}
	res, err := harness.Verify(ctx, keep, opts...)
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	res.Meta = meta
	stillFail := map[string]bool{}
	for _, t := range res.Targets {
		if t.Scenario == nil {
			continue
		}
		// A trial that passes this time has not shown fixed the checks it
		// failed that this run's probes still fail at its operations.
		probed := map[[2]string]bool{}
		for _, f := range t.Findings {
			if !f.Trial {
				probed[[2]string{f.Check, f.Operation}] = true
			}
		}
		for _, r := range t.Scenario.Replayed {
			var still []string
			ops := map[string]bool{}
			for _, st := range r.Trial.Steps {
				ops[st.Op] = true
			}
			for _, sv := range saved {
				if sv.Target != t.Name || !reflect.DeepEqual(sv.Trial, r.Trial) {
					continue
				}
				for _, id := range sv.Checks {
					for op := range ops {
						if probed[[2]string{id, op}] && !slices.Contains(still, id) {
							still = append(still, id)
						}
					}
				}
			}
			state := "passes now: fixed"
			if len(still) > 0 {
				state = fmt.Sprintf("passes this time, but this run's probes still fail %s at its operations: the flaw it caught is still there, and did not show in the trial this time (a race does not happen every time)", strings.Join(still, ", "))
			}
			if r.StillFail {
				state = fmt.Sprintf("still fails (%v)", r.Checks)
				stillFail[t.Name] = true
			}
			fmt.Fprintf(stderr, "%s: the saved trial %s\n%s", t.Name, state, r.Trial)
		}
	}
	harness.ApplyGate(res, c.minScore, "")
	replayGate(res, stillFail)
	if err := c.emit(res, formats, stdout, reports.Options{}); err != nil {
		return err
	}
	red := reports.Redact(res, secrets) // messages quote the target
	err = gateVerdict(ctx, red, c.quiet)
	if codeOf(err) == exitBelow {
		gateNote(stderr, red)
	}
	return err
}

// replayGate makes replay's verdict the saved trials': a target fails
// while a saved trial of it still fails, and passes once they all pass,
// whatever else its probes found (run judges those). A target that could
// not be tested keeps its gate.
func replayGate(res *record.Result, stillFail map[string]bool) {
	var failing []string
	for i := range res.Targets {
		t := &res.Targets[i]
		if t.Error != "" {
			continue
		}
		if stillFail[t.Name] {
			t.Gate = &record.TargetGate{Reason: "a saved trial still fails"}
			failing = append(failing, t.Name)
		} else {
			t.Gate = &record.TargetGate{Met: true, Reason: "every saved trial passes now"}
		}
	}
	if res.Gate == nil {
		return
	}
	res.Gate.Replay = true
	if len(failing) > 0 {
		res.Gate.Met, res.Gate.Reason = false, strings.Join(failing, ", ")+": a saved trial still fails"
	} else if res.Gate.Met || allTested(res) {
		res.Gate.Met, res.Gate.Reason = true, "every saved trial passes now"
	}
}

// allTested says whether every target of res could be tested.
func allTested(res *record.Result) bool {
	for _, t := range res.Targets {
		if t.Error != "" {
			return false
		}
	}
	return true
}
