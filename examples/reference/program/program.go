package program

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// Subcommand is the hidden idemcheck subcommand the reference targets run
// under. A program of them accepts it as its first argument too, so that a
// command line made for the idemcheck binary runs unchanged with it.
const Subcommand = "__example"

// MainFunc is a reference target's main function: it runs with args (the
// program's arguments after the target's name) and returns its exit code.
// The MCP servers read their requests from stdin.
type MainFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Dispatch runs the target of mains named by args[0] with the rest of
// args, and returns its exit code: 2, with a line on stderr, for a missing
// or unknown name. stdin is os.Stdin when nil.
func Dispatch(ctx context.Context, mains map[string]MainFunc, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	names := strings.Join(slices.Sorted(maps.Keys(mains)), ", ")
	if len(args) == 0 {
		fmt.Fprintf(stderr, "expected a reference target: %s\n", names)
		return 2
	}
	main, ok := mains[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "unknown reference target %q: expected one of %s\n", args[0], names)
		return 2
	}
	if stdin == nil {
		stdin = os.Stdin
	}
	return main(ctx, args[1:], stdin, stdout, stderr)
}

// Run runs the target of mains that the process's arguments name, as a
// whole program: [Subcommand] NAME [ARG ...], with the process's standard
// streams, a context that SIGINT, SIGTERM and SIGHUP cancel, and the
// target's exit code as the process's (see Dispatch).
func Run(mains map[string]MainFunc) {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == Subcommand {
		args = args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := Dispatch(ctx, mains, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// WithoutStdin adapts the main function of a target that reads no
// standard input to a MainFunc.
func WithoutStdin(main func(ctx context.Context, args []string, stdout, stderr io.Writer) int) MainFunc {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return main(ctx, args, stdout, stderr)
	}
}
