package main

import (
	"context"
	"os"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/internal/interrupt"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case guardSubcommand:
			os.Exit(guardMain(os.Args[2:]))
		case examples.Subcommand:
			os.Exit(referenceMain(os.Args[2:]))
		}
	}
	os.Exit(programMain(os.Args[1:]))
}

// referenceMain runs a reference target (the hidden examples.Subcommand)
// as the test binaries run it: with the program's signal handling but
// without programMain's guard process, run directory and tag of its own.
// A reference target is a target: the idemcheck that starts it tags it and
// sweeps what it leaves. A guard would be a second start of this large
// binary, and a sweep of /proc, for every call of a reference
// command-line tool and every start of a reference server.
func referenceMain(args []string) int {
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	return examples.Main(ctx, args, os.Stdout, os.Stderr)
}
