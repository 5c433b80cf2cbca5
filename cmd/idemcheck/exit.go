package main

import (
	"errors"
	"fmt"
)

// The exit codes, in one table; docs/reference/cli.md is generated from
// their comments.
const (
	// every target met the gate: --min-score (default 3; 0 for demo) and
	// no critical finding; with --baseline, nothing new (see
	// harness.ApplyGate). demo: every reference target got the
	// score it was built for; replay: every saved trial passes now.
	exitOK = 0
	// a target did not meet the gate: it scored below --min-score, has a
	// critical finding, or, with --baseline, scored lower or has a new
	// finding of the severity --min-score forbids. replay: a saved trial
	// still fails.
	exitBelow = 1
	// bad usage, configuration or input (a result file, a saved trial),
	// detected before anything ran.
	exitUsage = 2
	// the harness could not do its job: a target would not start, refused
	// connections, never succeeded, or its effects could not be
	// attributed.
	exitHarness = 3
	// interrupted by SIGINT, SIGTERM or SIGHUP; every process idemcheck
	// started was stopped and its temporary files removed.
	exitInterrupted = 130
)

// exitError is an error that knows its exit code and, perhaps, a hint for
// the user.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), hint: "run 'idemcheck help' for usage"}
}

func harnessErr(err error, hint string) error {
	return &exitError{code: exitHarness, err: err, hint: hint}
}

// codeOf maps an error to its exit code.
func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitHarness
}
