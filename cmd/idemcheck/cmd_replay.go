package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/scenarios"
)

// cmdReplay runs saved failing trials (failing-trials.json, written by run
// --out) against the configuration's targets, and reports whether they
// still fail.
func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("replay", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var c common
	var path string
	fset.StringVar(&path, "c", "", "configuration file (YAML)")
	fset.StringVar(&path, "config", "", "configuration file (YAML)")
	c.register(fset)
	if err := fset.Parse(args); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if path == "" || fset.NArg() != 1 {
		return usageErr("replay: usage: idemcheck replay -c FILE TRIALS.json")
	}
	formats, err := c.formats()
	if err != nil {
		return err
	}
	saved, err := scenarios.Load(fset.Arg(0))
	if errors.Is(err, fs.ErrNotExist) {
		return usageErr("replay: %s does not exist (run with --out DIR writes DIR/%s when a trial fails)", fset.Arg(0), failingTrialsFile)
	}
	if err != nil {
		return usageErr("replay: %v", err)
	}
	file, err := config.Load(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	specs, opts, err := build(file)
	if err != nil {
		return usageErr("%s: %v", path, err)
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
	meta, err := configMeta("replay", path)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	opts = append(opts, harness.WithSeed(seed), harness.WithTrials(0), harness.WithReplay(saved...), progressTo(c.quiet, stderr))
	res, err := harness.Verify(ctx, keep, opts...)
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	res.Meta = meta
	for _, t := range res.Targets {
		if t.Scenario == nil {
			continue
		}
		for _, r := range t.Scenario.Replayed {
			state := "passes now: fixed"
			if r.StillFail {
				state = fmt.Sprintf("still fails (%v)", r.Checks)
			}
			fmt.Fprintf(stderr, "%s: the saved trial %s\n%s", t.Name, state, r.Trial)
		}
	}
	if err := c.emit(res, formats, stdout, reports.Options{}); err != nil {
		return err
	}
	return verdict(ctx, res, c.minScore)
}
