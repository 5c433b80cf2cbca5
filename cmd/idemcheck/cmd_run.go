package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	var path, shard, only string
	fs.StringVar(&path, "c", "", "configuration file (YAML)")
	fs.StringVar(&path, "config", "", "configuration file (YAML)")
	fs.StringVar(&shard, "shard", "", "run only shard i of n (i/n); merge the shards' result.json with idemcheck report")
	fs.StringVar(&only, "only", "", "run only these checks, comma-separated (overrides the configuration's checks)")
	var tf trialFlags
	tf.register(fs, 25)
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
	if err := tf.check(); err != nil {
		return err
	}
	trialOpts, err := tf.options(c.out)
	if err != nil {
		return err
	}
	si, sn, err := parseShard(shard)
	if err != nil {
		return err
	}
	onlyIDs, err := parseOnly(only)
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
	meta, err := configMeta("run", path)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	if onlyIDs != nil {
		opts = append(opts, harness.WithChecks(onlyIDs...))
	}
	if sn > 1 {
		opts = append(opts, harness.WithShard(si, sn))
		meta.Shard = fmt.Sprintf("%d/%d", si, sn)
	}
	opts = append(opts, trialOpts...)
	opts = append(opts, harness.WithSeed(seed), progressTo(c.quiet, stderr))
	res, err := harness.Verify(ctx, specs, opts...)
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if res != nil {
		res.Meta = meta
		if ctx.Err() == nil {
			rerun := fmt.Sprintf("idemcheck run -c %s --seed %d --trials %d", path, seed, tf.trials)
			if err := saveTrials(res, c.out, "idemcheck replay -c "+path, rerun); err != nil {
				return err
			}
			if !c.quiet {
				trialNote(stderr, res)
			}
		}
	}
	if res != nil && ctx.Err() == nil {
		if err := c.emit(res, formats, stdout, reports.Options{}); err != nil {
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

var shardPattern = regexp.MustCompile(`^([0-9]+)/([0-9]+)$`)

// parseShard parses --shard i/n (1 ≤ i ≤ n); "" is the whole run (0, 0).
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	m := shardPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, usageErr("--shard: %q is not i/n (e.g. --shard 2/4)", s)
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usageErr("--shard: %q: expected 1 ≤ i ≤ n", s)
	}
	return i, n, nil
}

// parseOnly parses --only: check ids, comma-separated; nil when empty.
func parseOnly(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ids []string
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !harness.KnownCheck(id) {
			var known []string
			for _, c := range harness.Checks() {
				known = append(known, c.ID)
			}
			return nil, usageErr("--only: unknown check %q (known: %s)", id, strings.Join(known, ", "))
		}
		ids = append(ids, id)
	}
	return ids, nil
}
