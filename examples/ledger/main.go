package ledger

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Main runs the service with command-line arguments:
//
//	ledger --profile NAME --db postgres://…|sqlite:PATH [--listen 127.0.0.1:0] [--window 0]
//
// It prints "listening on http://ADDR" once it accepts connections, and
// returns 0 after a clean shutdown, 1 when serving fails, 2 on bad usage.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := Options{}
	fs.StringVar(&opts.Profile, "profile", "", "how a transfer and its key are written: "+strings.Join(Profiles, ", "))
	fs.StringVar(&opts.Listen, "listen", "127.0.0.1:0", "loopback address to listen on")
	fs.StringVar(&opts.DSN, "db", os.Getenv("DATABASE_URL"), "the database: postgres://… or sqlite:PATH ($DATABASE_URL)")
	fs.DurationVar(&opts.Window, "window", 0, "the other work a transfer does before it is committed (correct) or before its key is written (key-after-effect)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ledger: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if _, err := Describe(opts.Profile); err != nil {
		fmt.Fprintf(stderr, "ledger: --profile: %v\n", err)
		return 2
	}
	if opts.DSN == "" {
		fmt.Fprintln(stderr, "ledger: --db (or $DATABASE_URL) is required: postgres://… or sqlite:PATH")
		return 2
	}
	if opts.Window < 0 || opts.Window > time.Minute {
		fmt.Fprintf(stderr, "ledger: --window %s: out of range [0, 1m]\n", opts.Window)
		return 2
	}
	err := Serve(ctx, opts, stderr, func(addr string) { fmt.Fprintf(stdout, "listening on http://%s\n", addr) })
	if err != nil {
		fmt.Fprintf(stderr, "ledger: %v\n", err)
		return 1
	}
	return 0
}
