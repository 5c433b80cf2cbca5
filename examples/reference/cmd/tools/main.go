// Command tools runs one of the reference targets that the demo starts
// once per call or per session — the command-line tools and the MCP
// servers on stdio — as a program that carries only them:
// tools [__example] NAME [flags], the arguments of cmd/reference. The demo
// starts these targets from it, since most of the processes it starts are
// theirs and a start of it initialises fewer packages.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/examples/reference/tools"
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
	code := tools.Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
