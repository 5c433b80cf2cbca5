package tools

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

	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/examples/mcpdb"
	"github.com/idemcheck/idemcheck/examples/ordertool"
)

// The names of the targets this package starts, as Main takes them.
const (
	Ordertool = "ordertool"
	MCP       = "mcp"
	JSONStore = "jsonstore"
	MCPDB     = "mcpdb"
	CLIDB     = "clidb"
)

// MainFunc is a reference target's main function: it runs with args (the
// program's arguments after the target's name) and returns its exit code.
// The MCP servers read their requests from stdin.
type MainFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// mains are this package's targets' main functions, by name.
var mains = map[string]MainFunc{
	Ordertool: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return ordertool.Main(ctx, a, o, e)
	},
	MCP: mcpexample.Main,
	JSONStore: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return jsonstore.Main(ctx, a, o, e)
	},
	MCPDB: mcpdb.Main,
	CLIDB: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return clidb.Main(ctx, a, o, e)
	},
}

// Mains returns this package's targets' main functions, by name: a copy
// that the caller may add to.
func Mains() map[string]MainFunc { return maps.Clone(mains) }

// Names returns the names of this package's targets, sorted.
func Names() []string { return slices.Sorted(maps.Keys(mains)) }

// Main runs the target of this package named by args[0] with the rest of
// args, and returns its exit code (see Dispatch).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Dispatch(ctx, mains, args, stdin, stdout, stderr)
}

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

// Subcommand is the hidden idemcheck subcommand the reference targets run
// under. A program of them accepts it as its first argument too, so that a
// command line made for the idemcheck binary runs unchanged with it.
const Subcommand = "__example"

// Program runs main as a whole program: with the process's arguments (a
// leading Subcommand dropped) and standard streams, a context that SIGINT,
// SIGTERM and SIGHUP cancel, and main's exit code as the process's.
func Program(main MainFunc) {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == Subcommand {
		args = args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
