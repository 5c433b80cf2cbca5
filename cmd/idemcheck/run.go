package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/examples"
)

const usage = `idemcheck: a chaos and conformance harness for idempotent tools

Usage:
  idemcheck demo   [--format F,…] [--out DIR] [--seed N] [--min-score N]
                   [--trials N] [--budget D] [--quiet]
        run the built-in reference targets and score them side by side
  idemcheck run    -c FILE [--min-score N] [--format F,…] [--out DIR] [--seed N]
                   [--trials N] [--budget D] [--shard I/N] [--only CHECK,…] [--quiet]
        run the targets of a configuration file: the probes, then N generated
        trials per target (default 25, within --budget, default 2m); with
        --out DIR, failing trials are kept in DIR/failing-trials.json and run
        again first next time
  idemcheck replay -c FILE TRIALS.json
        run saved failing trials again and say whether they still fail
  idemcheck report [--format F,…] [--out DIR] [--min-score N] RESULT.json…
        re-score and re-render saved results (result.json); merge the shards of a run
  idemcheck fakes  [--payments ADDR] [--email ADDR] [--smtp ADDR] [--webhooks ADDR]
        run the fakes alone, on one ledger, until interrupted
  idemcheck init   [-o FILE] [--name NAME] -- COMMAND [ARG…]
        write a starter configuration for a command-line tool, from its help
  idemcheck help

Formats (--format, comma-separated; the first goes to stdout; with --out DIR
each goes to its file, and the raw result to DIR/result.json):
  text (report.txt), json (report.json), junit (report.xml), md (report.md),
  html (report.html)

Exit codes: 0 score met --min-score and no critical finding; 1 it did not;
2 bad usage, configuration or input; 3 the harness could not do its job; 130 interrupted.
`

// run is the whole program: tests call it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, args[1:], stdout, stderr)
	case "demo":
		err = cmdDemo(ctx, args[1:], stdout, stderr)
	case "report":
		err = cmdReport(ctx, args[1:], stdout, stderr)
	case "replay":
		err = cmdReplay(ctx, args[1:], stdout, stderr)
	case "fakes":
		err = cmdFakes(ctx, args[1:], stdout, stderr)
	case "init":
		err = cmdInit(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case examples.Subcommand:
		// Hidden: the reference targets, compiled into this binary so that
		// the demo needs no Go toolchain at run time.
		return examples.Main(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "idemcheck: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(stderr, "idemcheck: interrupted; every process it started was stopped")
		return exitInterrupted
	}
	code := codeOf(err)
	if code != exitBelow {
		fmt.Fprintf(stderr, "idemcheck: %v\n", err)
		var ee *exitError
		if errors.As(err, &ee) && ee.hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", ee.hint)
		}
	}
	return code
}
