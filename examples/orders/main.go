package orders

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Main runs the service with command-line arguments:
//
//	orders --profile NAME --db postgres://…|sqlite:PATH [--listen 127.0.0.1:0] [--window 2ms]
//
// It prints "listening on http://ADDR" once it accepts connections, and
// returns 0 after a clean shutdown, 1 when serving fails, 2 on bad usage.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("orders", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := Options{}
	fs.StringVar(&opts.Profile, "profile", "", "how orders are inserted: "+strings.Join(Profiles, ", "))
	fs.StringVar(&opts.Listen, "listen", "127.0.0.1:0", "loopback address to listen on")
	fs.StringVar(&opts.DSN, "db", os.Getenv("DATABASE_URL"), "the database: postgres://… or sqlite:PATH ($DATABASE_URL)")
	fs.DurationVar(&opts.Window, "window", DefaultWindow, "check-then-insert: the work between the check and the insert")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "orders: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if _, ok := Describe(opts.Profile); !ok {
		fmt.Fprintf(stderr, "orders: --profile %q: expected one of %s\n", opts.Profile, strings.Join(Profiles, ", "))
		return 2
	}
	if opts.DSN == "" {
		fmt.Fprintln(stderr, "orders: --db (or $DATABASE_URL) is required: postgres://… or sqlite:PATH")
		return 2
	}
	err := Serve(ctx, opts, func(addr string) { fmt.Fprintf(stdout, "listening on http://%s\n", addr) })
	if err != nil {
		fmt.Fprintf(stderr, "orders: %v\n", err)
		return 1
	}
	return 0
}
