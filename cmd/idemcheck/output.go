package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

// common holds the flags run and demo share.
type common struct {
	format   string
	out      string
	seed     string
	minScore int
	quiet    bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.format, "format", "text", "report formats, comma-separated: text, json")
	fs.StringVar(&c.out, "out", "", "write reports and the raw result to this directory")
	fs.StringVar(&c.seed, "seed", "", "seed for every random choice (default $IDEMCHECK_SEED, else random)")
	fs.IntVar(&c.minScore, "min-score", 0, "the score every target must reach (0-3)")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress lines on stderr")
}

var knownFormats = map[string]string{"text": "report.txt", "json": "report.json"}

func (c *common) formats() ([]string, error) {
	var out []string
	for _, f := range strings.Split(c.format, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if _, ok := knownFormats[f]; !ok {
			return nil, usageErr("--format: unknown format %q (known: text, json)", f)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, usageErr("--format: no format given")
	}
	if c.minScore < 0 || c.minScore > 3 {
		return nil, usageErr("--min-score: %d is not a score (0 to 3)", c.minScore)
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

// emit writes the reports: every format to its file under --out, and the
// first format to stdout.
func (c *common) emit(res *harness.Result, formats []string, stdout io.Writer, topt reports.TextOptions) error {
	render := func(f string) func(io.Writer) error {
		switch f {
		case "json":
			return func(w io.Writer) error { return reports.JSON(w, res) }
		default:
			return func(w io.Writer) error { return reports.Text(w, res, topt) }
		}
	}
	if c.out != "" {
		if err := os.MkdirAll(c.out, 0o755); err != nil {
			return harnessErr(fmt.Errorf("--out: %w", err), "choose a directory you can write to")
		}
		for _, f := range formats {
			if err := reports.WriteFile(filepath.Join(c.out, knownFormats[f]), render(f)); err != nil {
				return harnessErr(err, "")
			}
		}
		if err := reports.WriteFile(filepath.Join(c.out, "result.json"), func(w io.Writer) error { return reports.ResultJSON(w, res) }); err != nil {
			return harnessErr(err, "")
		}
	}
	return render(formats[0])(stdout)
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
