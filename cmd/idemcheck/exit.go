package main

import (
	"errors"
	"fmt"
)

// The exit codes, in one table.
const (
	exitOK          = 0   // every target met the gate (see harness.ApplyGate)
	exitBelow       = 1   // one did not
	exitUsage       = 2   // bad usage or configuration, detected before anything ran
	exitHarness     = 3   // the harness could not do its job
	exitInterrupted = 130 // interrupted
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
