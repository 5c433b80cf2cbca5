package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run")
	var c common
	var path, shard, only, baseline string
	fs.StringVar(&path, "c", "", configUsage)
	fs.StringVar(&path, "config", "", configUsage)
	fs.StringVar(&shard, "shard", "", "run only shard i of n (i/n); merge the shards' result.json with idemcheck report")
	fs.StringVar(&only, "only", "", "run only these checks, comma-separated (overrides the configuration's checks); "+
		"the score is then partial, and no generated trial runs unless --trials is given")
	fs.StringVar(&baseline, "baseline", "", baselineUsage)
	var targets string
	fs.StringVar(&targets, "target", "", "run only these targets of the configuration, comma-separated names")
	var tf trialFlags
	tf.register(fs, 25)
	c.register(fs)
	setMinScoreDefault(fs, &c.output, harness.DefaultMinScore)
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return usageErr("run: unexpected argument %q", fs.Arg(0))
	}
	path, err := resolveConfig("run", path)
	if err != nil {
		return err
	}
	formats, err := c.formats()
	if err != nil {
		return err
	}
	if err := tf.check(); err != nil {
		return err
	}
	unlock, err := c.lockOut()
	if err != nil {
		return err
	}
	defer unlock()
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
	if onlyIDs != nil && !flagGiven(fs, "trials") {
		// A replay of some checks runs their probes, not 25 trials of
		// every check.
		tf.trials = 0
		if trialOpts, err = tf.options(c.out); err != nil {
			return err
		}
	}
	file, specs, opts, err := loadConfig(ctx, path)
	if err != nil {
		return err
	}
	if specs, err = onlyTargets(specs, targets, path); err != nil {
		return err
	}
	if err := file.CheckPrograms(); err != nil {
		return &exitError{code: exitUsage, err: err, hint: "fix the command or directory: relative paths are taken from the directory of the configuration file"}
	}
	seed, err := c.resolveSeed(file.Seed)
	if err != nil {
		return err
	}
	printRemote(stderr, file)
	if err := file.CheckFree(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	meta := configMeta("run", file)
	if onlyIDs != nil {
		opts = append(opts, harness.WithChecks(onlyIDs...))
		meta.Only = onlyIDs
	}
	if strings.TrimSpace(targets) != "" {
		for _, s := range specs {
			meta.Targets = append(meta.Targets, s.Name)
		}
	}
	base, err := loadBaseline(baseline, meta)
	if err != nil {
		return err
	}
	if sn > 1 {
		opts = append(opts, harness.WithShard(si, sn))
		meta.Shard = fmt.Sprintf("%d/%d", si, sn)
	}
	opts = append(opts, trialOpts...)
	if err := checkSavedTrials(opts, specs); err != nil {
		return err
	}
	secrets := configSecrets(file)
	c.redactWith(secrets)
	opts = append(opts, harness.WithSeed(seed), progressOption(c.quiet, stderr, specs, onlyIDs, secrets...))
	if n, err := c.nonceOption(); err != nil {
		return err
	} else if n != nil {
		opts = append(opts, n)
	}
	res, err := harness.Verify(ctx, specs, opts...)
	var saveErr error
	if err != nil && ctx.Err() == nil {
		return harnessErr(err, "")
	}
	if res != nil {
		res.Meta = meta
		checks.MarkPartial(res)
		if err := applyGate(res, c.minScore, base); err != nil {
			return err
		}
		if ctx.Err() == nil {
			rerun := fmt.Sprintf("idemcheck run -c %s --seed %d --trials %d", reports.ShellQuote(path), seed, tf.trials)
			// A failing-trials file that cannot be written must not lose the
			// reports: its error is returned after they are written.
			saveErr = saveTrials(res, c.out, func(saved string) string { return runReplay(path, saved) }, rerun)
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
	if saveErr != nil {
		return saveErr
	}
	red := reports.Redact(res, secrets) // messages quote the target
	err = gateVerdict(ctx, red, c.quiet)
	if err == nil && !c.quiet || codeOf(err) == exitBelow {
		gateNote(stderr, red)
	}
	return err
}

// flagGiven reports whether the flag called name was set on the command
// line (not left at its default).
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			given = true
		}
	})
	return given
}

// parseShard parses --shard i/n (1 ≤ i ≤ n); "" is the whole run (0, 0).
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	i, n, err := harness.ParseShard(s)
	if err != nil {
		return 0, 0, usageErr("--shard: %v", err)
	}
	return i, n, nil
}

// parseOnly parses --only: check ids, comma-separated; nil when empty.
// onlyTargets keeps the specs named in list (--target: comma-separated
// names), all of them when it is empty; a name the configuration at path
// does not have is a usage error that lists those it has.
func onlyTargets(specs []harness.Spec, list, path string) ([]harness.Spec, error) {
	if strings.TrimSpace(list) == "" {
		return specs, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var kept []harness.Spec
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		if want[s.Name] {
			kept = append(kept, s)
			delete(want, s.Name)
		}
	}
	if len(want) > 0 {
		var unknown []string
		for n := range want {
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
		slices.Sort(unknown)
		return nil, usageErr("--target: %s has no target %s (its targets: %s)", path, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return kept, nil
}

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
		if !checks.KnownCheck(id) {
			var known []string
			for _, c := range checks.Checks() {
				known = append(known, c.ID)
			}
			return nil, usageErr("--only: unknown check %q (known: %s)", id, strings.Join(known, ", "))
		}
		ids = append(ids, id)
	}
	return ids, nil
}
