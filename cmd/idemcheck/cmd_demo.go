package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

// demoSeed makes the demo the same every time unless asked otherwise.
const demoSeed = 1

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	var tf trialFlags
	tf.register(fs, 0)
	if err := fs.Parse(args); err != nil {
		return &exitError{code: exitUsage, err: err}
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
	trialOpts, err := tf.options(c.out)
	if err != nil {
		return err
	}
	def := uint64(demoSeed)
	seed, err := c.resolveSeed(&def)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return harnessErr(fmt.Errorf("cannot find the idemcheck binary to start the reference targets: %w", err), "")
	}
	demo := examples.Demo(exe)
	specs := make([]harness.Spec, len(demo))
	expected := map[string]int{}
	for i, d := range demo {
		specs[i] = d.Spec
		expected[d.Spec.Name] = d.Built
	}
	res, err := harness.Verify(ctx, specs, append(trialOpts, harness.WithSeed(seed), progressTo(c.quiet, stderr))...)
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if ctx.Err() == nil && res != nil {
		rerun := fmt.Sprintf("idemcheck demo --seed %d --trials %d", seed, tf.trials)
		if err := saveTrials(res, c.out, rerun, rerun); err != nil {
			return err
		}
		if !c.quiet {
			trialNote(stderr, res)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	res.Meta = harness.Meta{Version: version(), Command: "demo"}
	if err := c.emit(res, formats, stdout, reports.Options{Expected: expected}); err != nil {
		return err
	}
	if res.Failed() {
		return verdict(ctx, res, 0)
	}
	var off []string
	for _, t := range res.Targets {
		if t.Score.Level != expected[t.Name] {
			off = append(off, fmt.Sprintf("%s scored %d, built for %d", t.Name, t.Score.Level, expected[t.Name]))
		}
	}
	if len(off) > 0 {
		fmt.Fprintf(stderr, "idemcheck demo: not every reference target got the score it was built for: %v\n", off)
		return &exitError{code: exitBelow, err: fmt.Errorf("%v", off)}
	}
	if !c.quiet {
		fmt.Fprintf(stderr, "idemcheck demo: every reference target got the score it was built for (seed %d)\n", seed)
	}
	return nil
}
