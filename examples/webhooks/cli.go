package webhooks

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Main is the whole program: it parses args, prints "listening on
// http://ADDR" once ready, and serves until ctx is done. It returns 0
// after ctx is cancelled, 2 on bad flags (before anything is bound), 1 if
// serving fails.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webhooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	fs.StringVar(&o.Profile, "profile", "", "de-duplication profile, one of: "+strings.Join(Profiles, ", "))
	fs.StringVar(&o.Listen, "listen", DefaultListen, "loopback `address` to listen on")
	fs.StringVar(&o.PaymentsURL, "payments", os.Getenv("PAYMENTS_URL"), "base `URL` of the payments fake (default $PAYMENTS_URL)")
	fs.StringVar(&o.Secret, "secret", os.Getenv("WEBHOOK_SECRET"), "signing `secret` shared with the sender (default $WEBHOOK_SECRET)")
	fs.StringVar(&o.StateDir, "state", "", "`directory` that survives restarts, for the event records")
	fs.DurationVar(&o.Lease, "lease", DefaultLease, "how long a claim on an event holds while its process lives")
	fs.IntVar(&o.LRUSize, "lru-size", DefaultLRUSize, "lru-memory only: how many event ids are remembered")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "webhooks: unexpected arguments %q; all settings are flags\n", fs.Args())
		return 2
	}
	check := o
	if _, err := check.resolve(); err != nil {
		fmt.Fprintf(stderr, "webhooks: %v\n", err)
		return 2
	}
	err := Serve(ctx, o, func(addr string) { fmt.Fprintf(stdout, "listening on http://%s\n", addr) })
	if err != nil {
		fmt.Fprintf(stderr, "webhooks: %v\n", err)
		return 1
	}
	return 0
}
