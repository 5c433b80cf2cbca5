package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	var path string
	fs.StringVar(&path, "c", "", "configuration file (YAML)")
	fs.StringVar(&path, "config", "", "configuration file (YAML)")
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if fs.NArg() > 0 {
		return usageErr("run: unexpected argument %q", fs.Arg(0))
	}
	if path == "" {
		return usageErr("run: -c FILE is required")
	}
	formats, err := c.formats()
	if err != nil {
		return err
	}
	file, err := config.Load(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err, hint: "see the configuration section of the README"}
	}
	seed, err := c.resolveSeed(file.Seed)
	if err != nil {
		return err
	}
	specs, opts, err := build(file)
	if err != nil {
		var ce config.Errors
		if errors.As(err, &ce) {
			return &exitError{code: exitUsage, err: err}
		}
		return usageErr("%s: %v", path, err)
	}
	opts = append(opts, harness.WithSeed(seed), progressTo(c.quiet, stderr))
	res, err := harness.Verify(ctx, specs, opts...)
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if res != nil && ctx.Err() == nil {
		if err := c.emit(res, formats, stdout, reports.TextOptions{}); err != nil {
			return err
		}
	}
	if err := verdict(ctx, res, c.minScore); err != nil {
		return err
	}
	if !c.quiet {
		fmt.Fprintf(stderr, "idemcheck: every target met --min-score %d (seed %d)\n", c.minScore, seed)
	}
	return nil
}
