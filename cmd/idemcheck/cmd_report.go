package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// cmdReport re-reads raw results (result.json, written by run and demo
// with --out), merges the shards of a run, re-scores and re-renders them,
// applies the gate (--min-score, --baseline: run's defaults) and exits as
// run would have.
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	var o output
	var baseline string
	o.register(fs)
	setMinScoreDefault(fs, &o, harness.DefaultMinScore)
	fs.StringVar(&baseline, "baseline", "", baselineUsage)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(paths) == 0 {
		return usageErr("report: give at least one RESULT.json (the result.json that run or demo --out writes)")
	}
	formats, err := o.formats()
	if err != nil {
		return err
	}
	results := make([]*record.Result, len(paths))
	for i, p := range paths {
		if results[i], err = record.ReadResultFile(p); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("report: %s: %w", p, err), hint: "pass the result.json files written by idemcheck run --out (or demo --out)"}
		}
	}
	merged, err := harness.Merge(results...)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("report: %w", err)}
	}
	base, err := loadBaseline(baseline, merged.Meta)
	if err != nil {
		return err
	}
	if err := applyGate(merged, o.minScore, base); err != nil {
		return err
	}
	if err := o.emit(merged, formats, stdout, reports.Options{}); err != nil {
		return err
	}
	// No progress line said why a target was not tested: stderr says it.
	err = gateVerdict(ctx, merged, true)
	if err == nil && !o.quiet || codeOf(err) == exitBelow {
		gateNote(stderr, merged)
	}
	return err
}

// parseInterspersed parses flags that may come after the file names too
// (report RESULT.json --min-score 2); a "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
