package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// demoSeed makes the demo the same every time unless asked otherwise.
const demoSeed = 1

// referenceProgram, when set, returns the program the demo starts its
// reference targets from (see demoReference): the tests point it at the
// one they built.
var referenceProgram func() (string, error)

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo")
	var c common
	c.register(fs)
	var tf trialFlags
	tf.register(fs, 0)
	jobs := fs.Int("jobs", 0, "reference targets that work at once (0: as many as the processors have time for, up to twelve per processor Go may use, GOMAXPROCS)")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return usageErr("demo: unexpected argument %q", fs.Arg(0))
	}
	formats, err := c.formats()
	if err != nil {
		return err
	}
	if err := tf.check(); err != nil {
		return err
	}
	if *jobs < 0 || *jobs > maxJobs {
		return usageErr("--jobs: %d is not a number of targets at once (1 to %d, or 0 for as many as the processors have time for)", *jobs, maxJobs)
	}
	budget := 0.0
	if *jobs == 0 {
		*jobs, budget = defaultJobs(), demoCPUBudget
	}
	unlock, err := c.lockOut()
	if err != nil {
		return err
	}
	defer unlock()
	defer limitDemoMemory(os.Getenv)()
	trialOpts, err := tf.options(c.out)
	if err != nil {
		return err
	}
	def := uint64(demoSeed)
	seed, err := c.resolveSeed(&def)
	if err != nil {
		return err
	}
	progs, note, removeExe, err := demoReference(ctx, func() {
		if !c.quiet {
			fmt.Fprintln(stderr, "idemcheck demo: building the reference targets' programs from this checkout (a first demo compiles them, for a minute or more)")
		}
	})
	if err != nil {
		return harnessErr(fmt.Errorf("cannot find the program to start the reference targets from: %w", err), "")
	}
	defer removeExe()
	if note != "" && !c.quiet {
		fmt.Fprintf(stderr, "idemcheck demo: %s\n", note)
	}
	db, stopDB := demoOrdersDB(ctx, c.quiet, stderr)
	defer stopDB()
	demo := examples.DemoFrom(progs, db)
	withDeps, skipped := examples.DependencyDemo(progs.Exe)
	for _, why := range skipped {
		fmt.Fprintf(stderr, "idemcheck demo: %s\n", why)
	}
	demo = append(demo, withDeps...)
	specs := make([]harness.Spec, len(demo))
	expected := map[string]int{}
	for i, d := range demo {
		specs[i] = d.Spec
		expected[d.Spec.Name] = d.Built
	}
	c.redactWith(envSecrets())
	opts := append(trialOpts, harness.WithSeed(seed), harness.WithParallel(*jobs), harness.WithCPUBudget(budget), progressTo(c.quiet, stderr, c.secrets...))
	last := loadDurations(progs.Tools)
	res, err := verifyInOrder(func(specs []harness.Spec) (*record.Result, error) {
		return harness.Verify(ctx, specs, opts...)
	}, specs, longestFirst(specs, last))
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if ctx.Err() == nil && res != nil {
		rerun := fmt.Sprintf("idemcheck demo --seed %d --trials %d", seed, tf.trials)
		if err := saveTrials(res, c.out, func(string) string { return demoReplay(rerun, c.out) }, rerun); err != nil {
			return err
		}
		if !c.quiet {
			trialNote(stderr, res)
			slowestNote(stderr, res, *jobs, budget > 0)
		}
		if err := saveDurations(progs.Tools, res, last); err != nil && !c.quiet {
			fmt.Fprintf(stderr, "idemcheck demo: the targets' durations, which order the next demo, were not kept: %v\n", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	res.Meta = record.Meta{Version: version(), Command: "demo"}
	demoGate(res, c.minScore, expected)
	if err := c.emit(res, formats, stdout, reports.Options{Expected: expected}); err != nil {
		return err
	}
	if res.Failed() {
		return gateVerdict(ctx, res, c.quiet)
	}
	if !res.Gate.Met {
		fmt.Fprintf(stderr, "idemcheck demo: %s\n", res.Gate.Reason)
		return &exitError{code: exitBelow, err: errors.New(res.Gate.Reason)}
	}
	if !c.quiet {
		fmt.Fprintf(stderr, "idemcheck demo: %s (seed %d)\n", res.Gate.Reason, seed)
	}
	return nil
}

// demoGate is the demo's gate: the reference targets are flawed on
// purpose, so a target meets it when it got the score it was built for
// and reached --min-score, which is 0 unless given (a higher one shows
// what a gate would fail).
func demoGate(res *record.Result, minScore int, expected map[string]int) {
	harness.ApplyGate(res, minScore, "")
	g := &record.Gate{MinScore: minScore, Met: true}
	var off []string
	for i := range res.Targets {
		t := &res.Targets[i]
		if t.Error != "" {
			g.Met = false
			off = append(off, t.Name+": "+t.Gate.Reason)
			continue
		}
		built := expected[t.Name]
		switch {
		case t.Score.Level != built:
			// The score's reason names what made the difference, so that
			// a verdict that moved can be told from the message alone.
			t.Gate = &record.TargetGate{Reason: fmt.Sprintf("score %d, built for %d (%s)", t.Score.Level, built, t.Score.Reason)}
		case t.Score.Level < minScore:
			t.Gate = &record.TargetGate{Reason: fmt.Sprintf("score %d as built, below --min-score %d", t.Score.Level, minScore)}
		default:
			t.Gate = &record.TargetGate{Met: true, Reason: fmt.Sprintf("score %d, as built", t.Score.Level)}
		}
		if !t.Gate.Met {
			g.Met = false
			off = append(off, t.Name+": "+t.Gate.Reason)
		}
	}
	g.Reason = "every reference target got the score it was built for"
	if minScore > 0 {
		g.Reason += fmt.Sprintf(" and reached --min-score %d", minScore)
	}
	if !g.Met {
		g.Reason = strings.Join(off, "; ")
	}
	res.Gate = g
}
