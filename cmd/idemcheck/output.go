package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

// devVersion is idemcheck's version when the build does not say (a build
// from a checkout rather than go install/go run module@version).
const devVersion = "0.1.0-dev"

// version is idemcheck's version: the module version it was built as, else
// devVersion.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == "github.com/idemcheck/idemcheck" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return devVersion
}

// output holds the flags of every command that writes reports.
type output struct {
	format   string
	out      string
	minScore int
	quiet    bool
}

func (o *output) register(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "text", "report formats, comma-separated: "+reports.FormatNames()+" (the first goes to stdout)")
	fs.StringVar(&o.out, "out", "", "write every report, and the raw result (result.json), to this directory")
	fs.IntVar(&o.minScore, "min-score", 0, "the score every target must reach (0-3)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines on stderr")
}

// common holds the flags run and demo share.
type common struct {
	output
	seed string
}

func (c *common) register(fs *flag.FlagSet) {
	c.output.register(fs)
	fs.StringVar(&c.seed, "seed", "", "seed for every random choice (default $IDEMCHECK_SEED, else random)")
}

// formats checks --format and --min-score and returns the formats asked for.
func (o *output) formats() ([]reports.Format, error) {
	var out []reports.Format
	seen := map[string]bool{}
	for _, name := range strings.Split(o.format, ",") {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		f, ok := reports.LookupFormat(name)
		if !ok {
			return nil, usageErr("--format: unknown format %q (known: %s)", name, reports.FormatNames())
		}
		seen[name] = true
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, usageErr("--format: no format given (known: %s)", reports.FormatNames())
	}
	if o.minScore < 0 || o.minScore > 3 {
		return nil, usageErr("--min-score: %d is not a score (0 to 3)", o.minScore)
	}
	return out, nil
}

// resolveSeed returns the seed from --seed, then $IDEMCHECK_SEED, then def
// (when given), else a fresh one.
func (c *common) resolveSeed(def *uint64) (uint64, error) {
	s, from := c.seed, "--seed"
	if s == "" {
		s, from = os.Getenv("IDEMCHECK_SEED"), "IDEMCHECK_SEED"
	}
	if s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, usageErr("%s: %q is not a seed (a whole number)", from, s)
		}
		return v, nil
	}
	if def != nil {
		return *def, nil
	}
	return uint64(time.Now().UnixNano()) & (1<<53 - 1), nil
}

// emit writes the reports: with --out, the raw result to DIR/result.json
// and every format to its file, each atomically; and the first format to
// stdout.
func (o *output) emit(res *harness.Result, formats []reports.Format, stdout io.Writer, ropt reports.Options) error {
	ropt.MinScore = o.minScore
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return harnessErr(fmt.Errorf("--out: %w", err), "choose a directory you can write to")
		}
		// The raw result first: it is what every report can be made again from.
		if err := reports.WriteFile(filepath.Join(o.out, "result.json"), func(w io.Writer) error { return reports.ResultJSON(w, res) }); err != nil {
			return harnessErr(err, "")
		}
		for _, f := range formats {
			if err := reports.WriteFile(filepath.Join(o.out, f.File), func(w io.Writer) error { return f.Render(w, res, ropt) }); err != nil {
				return harnessErr(err, "")
			}
		}
	}
	if err := formats[0].Render(stdout, res, ropt); err != nil {
		return harnessErr(fmt.Errorf("writing the %s report: %w", formats[0].Name, err), "")
	}
	return nil
}

// configMeta describes a run made from the configuration file at path.
func configMeta(command, path string) (harness.Meta, error) {
	m := harness.Meta{Version: version(), Command: command, Config: path}
	if path == "" {
		return m, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	sum := sha256.Sum256(b)
	m.ConfigDigest = hex.EncodeToString(sum[:])
	return m, nil
}

// verdict turns a result into the exit code's error.
func verdict(ctx context.Context, res *harness.Result, minScore int) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var untested []string
	for _, t := range res.Targets {
		if t.Error != "" {
			untested = append(untested, t.Name+": "+t.Error)
		}
	}
	if len(untested) > 0 {
		return harnessErr(fmt.Errorf("could not test %s", strings.Join(untested, "; ")), "")
	}
	for _, t := range res.Targets {
		if t.Score.Level < minScore {
			return &exitError{code: exitBelow, err: fmt.Errorf("%s scored %d, below --min-score %d", t.Name, t.Score.Level, minScore)}
		}
		for _, f := range t.Findings {
			if f.Severity == harness.Critical {
				return &exitError{code: exitBelow, err: fmt.Errorf("%s has a critical finding", t.Name)}
			}
		}
	}
	return nil
}

func progressTo(quiet bool, stderr io.Writer) harness.Option {
	if quiet {
		return func(*harness.Options) {}
	}
	return harness.WithProgress(stderr)
}
