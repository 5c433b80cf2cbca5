package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/record"
)

// setMinScoreDefault makes v the default of --min-score (registered by
// output.register), in the flag's help too.
func setMinScoreDefault(fs *flag.FlagSet, o *output, v int) {
	o.minScore = v
	if f := fs.Lookup("min-score"); f != nil {
		f.DefValue = strconv.Itoa(v)
	}
}

// baselineUsage is the help of --baseline.
const baselineUsage = "an earlier result.json: gate only on what is new since (new findings, lower scores); findings are matched by target, check, operation, fault and the downstream call it was armed at, so an edited configuration keeps its history"

// loadBaseline reads the --baseline file and checks that it can be one
// for a run made as meta says; "" is no baseline. A file that is not a
// result, or only one shard of a run, is a usage error (exit 2).
func loadBaseline(path string, meta record.Meta) (*record.Result, error) {
	if path == "" {
		return nil, nil
	}
	hint := "pass the result.json that an earlier run wrote with --out"
	base, err := record.ReadResultFile(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("--baseline %s: %w", path, err), hint: hint}
	}
	if err := harness.CheckBaseline(base, meta); err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("--baseline %s: %w", path, err), hint: hint}
	}
	return base, nil
}

// applyGate compares res with base (when given) and applies the gate of
// minScore to it: the gate goes into the result, and so into every report.
func applyGate(res *record.Result, minScore int, base *record.Result) error {
	src := ""
	if base != nil {
		if err := harness.Compare(base, res); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--baseline: %w", err)}
		}
		src = base.Source
	}
	harness.ApplyGate(res, minScore, src)
	return nil
}

// gateVerdict turns a gated result into the exit code's error: the run
// was interrupted, a target could not be tested (exit 3), or the gate was
// not met (exit 1). A target's error is said once on stderr: in full when
// quiet, else only by name, since its progress line already said it.
func gateVerdict(ctx context.Context, res *record.Result, quiet bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var untested []string
	for _, t := range res.Targets {
		if t.Error == "" {
			continue
		}
		if quiet {
			untested = append(untested, t.Name+": "+t.Error)
		} else {
			untested = append(untested, t.Name)
		}
	}
	if len(untested) > 0 {
		if quiet {
			return harnessErr(fmt.Errorf("could not test %s", strings.Join(untested, "; ")), "")
		}
		return harnessErr(fmt.Errorf("could not test %s: see why above", strings.Join(untested, ", ")), "")
	}
	if res.Gate == nil {
		return harnessErr(errors.New("no gate was applied to the result"), "")
	}
	if !res.Gate.Met {
		return &exitError{code: exitBelow, err: errors.New(res.Gate.Reason)}
	}
	return nil
}

// gateNote says on stderr, once, whether the gate was met, and why.
func gateNote(w io.Writer, res *record.Result) {
	g := res.Gate
	if g == nil || res.Failed() {
		return
	}
	state := "gate passed"
	if !g.Met {
		state = "gate failed"
	}
	fmt.Fprintf(w, "idemcheck: %s (seed %d): %s\n", state, res.Seed, g.Reason)
}

// partialProgress passes progress lines on, saying "partial score" where a
// target's line gives the score of a run restricted by --only: that
// number judges only the checks that ran (see checks.MarkPartial).
type partialProgress struct {
	w     io.Writer
	names map[string]bool
}

var progressScore = lazyregexp.New(`^(.*): score \d+, (.*\n?)$`)

func (p partialProgress) Write(b []byte) (int, error) {
	if m := progressScore.FindSubmatch(b); m != nil && p.names[string(m[1])] {
		if _, err := fmt.Fprintf(p.w, "%s: partial score, %s", m[1], m[2]); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return p.w.Write(b)
}

// progressOption is progressTo's option, its lines saying "partial score"
// when only (--only) leaves out a check the rubric needs.
func progressOption(quiet bool, stderr io.Writer, specs []harness.Spec, only []string, secrets ...string) harness.Option {
	var po harness.Options
	progressTo(quiet, stderr, secrets...)(&po)
	if po.Progress == nil || !partialRun(only) {
		return progressTo(quiet, stderr, secrets...)
	}
	names := map[string]bool{}
	for _, s := range specs {
		names[s.Name] = true
	}
	return harness.WithProgress(partialProgress{w: po.Progress, names: names})
}

// partialRun reports whether a run restricted to only leaves out a check
// some level of the rubric needs.
func partialRun(only []string) bool {
	if len(only) == 0 {
		return false
	}
	ran := map[string]bool{}
	for _, id := range only {
		ran[id] = true
	}
	for _, l := range checks.Rubric() {
		for _, id := range l.Needs {
			if !ran[id] {
				return true
			}
		}
	}
	return false
}
