package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// output holds the flags of every command that writes reports.
type output struct {
	format   string
	out      string
	minScore int
	quiet    bool
	secrets  []string // redacted from every report
	// noMinScore leaves --min-score out: a command whose verdict is not
	// the score's (replay).
	noMinScore bool
}

func (o *output) register(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "text", "the report formats `F,…`, comma-separated: "+reports.FormatNames()+" (the first goes to stdout)")
	fs.StringVar(&o.out, "out", "", "write every report, and the raw result (result.json), to `DIR`")
	if !o.noMinScore {
		fs.IntVar(&o.minScore, "min-score", 0, "the score every target must reach (0-3)")
	}
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines on stderr")
}

// redactWith records the values to redact from every report and progress
// line: those the configuration marks secret (see configSecrets).
func (o *output) redactWith(secrets []string) { o.secrets = secrets }

// common holds the flags run and demo share.
type common struct {
	output
	seed  string
	nonce string
}

func (c *common) register(fs *flag.FlagSet) {
	c.output.register(fs)
	fs.StringVar(&c.seed, "seed", "", "the seed `N` for every random choice (default $IDEMCHECK_SEED, else random)")
	fs.StringVar(&c.nonce, "nonce", "", "the run's nonce `N`, mixed into every key and marker (default: a fresh one per run, recorded in result.json); "+
		"with --seed it repeats a run's keys byte for byte, which only makes sense against a target whose state was reset")
}

// nonceOption returns the option for --nonce, nil when it is not given.
func (c *common) nonceOption() (harness.Option, error) {
	if c.nonce == "" {
		return nil, nil
	}
	v, err := strconv.ParseUint(c.nonce, 10, 64)
	if err != nil || v == 0 {
		return nil, usageErr("--nonce: %q is not a nonce (a whole number above 0)", c.nonce)
	}
	return harness.WithNonce(v), nil
}

// formats checks --format and --min-score and returns the formats asked for.
func (o *output) formats() ([]reports.Format, error) {
	out, err := reports.ParseFormats(o.format)
	if err != nil {
		return nil, usageErr("--format: %v", err)
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
// and every format to its file, replaced as a set (reports.WriteDir); and
// the first format to stdout. Files that cannot be written never stop the
// report on stdout: every failure is returned together.
func (o *output) emit(res *record.Result, formats []reports.Format, stdout io.Writer, ropt reports.Options) error {
	res = reports.Redact(res, o.secrets)
	ropt.MinScore = o.minScore
	var errs []error
	if o.out != "" {
		if err := reports.WriteDir(o.out, res, formats, ropt); err != nil {
			errs = append(errs, err)
		}
	}
	sopt := ropt
	sopt.Color = colorFor(stdout)
	if err := formats[0].Render(stdout, res, sopt); err != nil {
		errs = append(errs, fmt.Errorf("writing the %s report: %w", formats[0].Name, err))
	}
	if len(errs) > 0 {
		return harnessErr(errors.Join(errs...), "choose an --out directory you can write to")
	}
	return nil
}

// colorFor reports whether text written to w may be coloured: only on a
// terminal, and not when NO_COLOR is set (no-color.org) or TERM is dumb.
func colorFor(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// loadConfig loads the configuration file at path and builds what the
// harness runs from it; a file that cannot be used is a usage error (exit
// 2) that names the file, line and field. A signal that cancels ctx
// while a FIFO is waited on ends the wait.
func loadConfig(ctx context.Context, path string) (*config.File, []harness.Spec, []harness.Option, error) {
	file, err := config.LoadContext(ctx, path)
	if err != nil {
		return nil, nil, nil, &exitError{code: exitUsage, err: err, hint: configHint}
	}
	specs, opts, err := file.Specs()
	if err != nil {
		var ce config.Errors
		if errors.As(err, &ce) {
			return nil, nil, nil, &exitError{code: exitUsage, err: err}
		}
		return nil, nil, nil, usageErr("%s: %v", path, err)
	}
	return file, specs, opts, nil
}

// configMeta describes a run made from the configuration file.
func configMeta(command string, file *config.File) record.Meta {
	return record.Meta{Version: version(), Command: command, Config: file.Source(), ConfigDigest: file.Digest()}
}

func progressTo(quiet bool, stderr io.Writer, secrets ...string) harness.Option {
	if quiet {
		return func(*harness.Options) {}
	}
	return harness.WithProgress(cleanWriter{stderr, secrets})
}

// cleanWriter passes text to a terminal with what a target printed made
// harmless (reports.Clean): no raw ESC, NUL or invalid UTF-8, and no
// secret (reports.RedactText). Each write is cleaned on its own, so it is
// for whole lines, as progress writes.
type cleanWriter struct {
	w       io.Writer
	secrets []string
}

func (c cleanWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, reports.RedactText(reports.Clean(string(p)), c.secrets)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// configHint is the hint under a configuration's errors: where every
// field is described.
const configHint = "every field is described in docs/reference/configuration.md, with examples in docs/guides/configuration.md"
