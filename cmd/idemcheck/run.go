package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/reports"
)

const usage = `idemcheck: a chaos and conformance harness for idempotent tools

Usage:
  idemcheck demo   [--format F,…] [--out DIR] [--seed N] [--min-score N]
                   [--trials N] [--budget D] [--jobs N] [--quiet]
        run the built-in reference targets, flawed on purpose, and score them
        side by side, up to N at a time (default: as many as the processors
        have time for); it passes when each gets the score it was built for
        (its --min-score defaults to 0)
  idemcheck run    [-c FILE] [--min-score N] [--baseline OLD/result.json]
                   [--format F,…] [--out DIR] [--seed N] [--trials N]
                   [--budget D] [--shard I/N] [--only CHECK,…]
                   [--target NAME,…] [--quiet]
        run the targets of a configuration file (default: idemcheck.yaml in
        the working directory): the probes, then N generated trials per
        target (default 25, within --budget, default 2m); with --out DIR,
        failing trials are kept in DIR/failing-trials.json and run again
        first next time; with --only, only those checks' probes run (no
        trials unless --trials is given) and the score is partial; with
        --target, only those targets run
  idemcheck replay [-c FILE] [--format F,…] [--out DIR] [--seed N]
                   [--quiet] TRIALS.json
        run saved failing trials again and say whether they still fail: exit
        1 while one does, 0 once they all pass (the probes run too, and are
        reported, but the verdict is the saved trials')
  idemcheck report [--format F,…] [--out DIR] [--min-score N]
                   [--baseline OLD/result.json] RESULT.json…
        re-score and re-render saved results (result.json); merge the shards
        of a run; gate them as run does
  idemcheck fakes  [--payments ADDR] [--email ADDR] [--smtp ADDR]
                   [--webhooks ADDR] [-c FILE]
        run the fakes alone, on one ledger, until interrupted
  idemcheck init   [-o FILE] [--name NAME] -- COMMAND [ARG…]
  idemcheck init   [-o FILE] [--name NAME] --mcp -- COMMAND [ARG…]
  idemcheck init   [-o FILE] [--name NAME] --mcp-url URL
  idemcheck init   [-o FILE] [--name NAME] --openapi SPEC
  idemcheck init   [-o FILE] [--name NAME] --http URL [-- COMMAND [ARG…]]
  idemcheck init   [-o FILE] [--name NAME] --webhook URL [-- COMMAND [ARG…]]
  idemcheck init   [-o FILE] [--name NAME] --consumer [--broker BROKER]
                   [--topic TOPIC] [-- COMMAND [ARG…]]
        write a starter configuration: for a command-line tool, from its
        help; for an MCP server, from its tools; for an HTTP API, from its
        OpenAPI description, or without one with what to fill in; for a
        webhook handler or a queue consumer, with what to fill in
  idemcheck cleanup
        kill the processes and remove the temporary files that idemcheck
        runs which no longer exist left behind (e.g. after a SIGKILL)
  idemcheck version
        print idemcheck's version (also: idemcheck --version)
  idemcheck help [COMMAND]
        print this help, or a command's (also: idemcheck COMMAND --help)

Flags may come before or after the files of replay and report (idemcheck
replay TRIALS.json --seed 3); a -- ends them (idemcheck report -- -x.json).

Formats (--format, comma-separated; the first goes to stdout; with --out DIR
each goes to its file, and the raw result to DIR/result.json):
  text (report.txt), json (report.json), junit (report.xml), md (report.md),
  html (report.html)

Gate (run and report): a target passes when it scores at least --min-score
(default 3) and has no critical finding; a partial score (--only) is not
judged, only its findings: one that alone keeps a target below --min-score
fails it. With --baseline, only what is new fails: a lower score, or a new
finding of that severity (findings are matched by check, operation, fault
and the downstream call it was armed at). The gate and its reason are in
every report and in result.json.

Exit codes: 0 every target met the gate; 1 one did not; 2 bad usage,
configuration or input; 3 the harness could not do its job; 130
interrupted (SIGINT, SIGTERM or SIGHUP: every process it started is
stopped and its temporary files removed).

Temporary files (the targets' state directories and TMPDIR): in $TMPDIR.
When it is unset or empty, run, demo and replay keep them on /dev/shm
where that is a writable memory file system with 1 GiB free, not mounted
noexec; otherwise, and for other commands, they go to /tmp.
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
	case "cleanup":
		err = cmdCleanup(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" && args[1] != "help" {
			return run(ctx, []string{args[1], "--help"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "version", "--version":
		err = cmdVersion(args[1:], stdout)
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
	if code == exitOK {
		return exitOK // --help, answered
	}
	if code != exitBelow {
		// The error may quote a target's output.
		fmt.Fprintf(stderr, "idemcheck: %s\n", redactedError(err, envSecrets()))
		var ee *exitError
		if errors.As(err, &ee) && ee.hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", ee.hint)
		}
	}
	return code
}

// redactedError is err's text, cleaned and with every secret redacted
// (reports.RedactText). A configuration file's errors are redacted part
// by part (config.Errors.Format), so that a field named for a credential
// (signature.secret) followed by its message is not taken for one.
func redactedError(err error, secrets []string) string {
	redact := func(s string) string { return reports.RedactText(reports.Clean(s), secrets) }
	var ce config.Errors
	if errors.As(err, &ce) && ce.Error() == err.Error() {
		return ce.Format(redact)
	}
	return redact(err.Error())
}
