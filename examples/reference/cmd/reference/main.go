// Command reference runs one reference target of idemcheck's demo as a
// program of its own: reference [__example] NAME [flags]. It is what
// idemcheck's tests start (built without the race detector), since a
// start of it costs a few milliseconds where a start of idemcheck, which
// carries the same targets, initialises the whole harness first.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/examples/reference"
)

// subcommand is the hidden idemcheck subcommand the reference targets run
// under; it is accepted here too, so that a command line made for the
// idemcheck binary runs unchanged with this one.
const subcommand = "__example"

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == subcommand {
		args = args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := reference.Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
