package shop

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Exit codes of Main.
const (
	exitOK    = 0
	exitServe = 1
	exitUsage = 2
)

// envInt is the integer in the environment variable name, 0 when unset,
// -1 when not a number (refused by the range check of Options.Keys).
func envInt(name string) int {
	v := os.Getenv(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return n
}

// Main is the whole program behind examples/http/<profile>: it parses args,
// prints "listening on http://ADDR" to stdout once ready, and serves until
// ctx is done. Flags: --profile, --listen (default 127.0.0.1:0), --payments
// (default $PAYMENTS_URL), --email (default $EMAIL_URL; see
// Options.EmailURL), --state (a directory that survives restarts;
// see Options.StateDir), --window (check-then-act only; see
// Options.Window), --keys (bounded-keys only, default $SHOP_KEYS) and
// --ttl (expiring-keys only; see Options.Keys and Options.TTL). It
// returns 0 after ctx is cancelled, 2 on bad flags or options (before
// anything is bound), 1 if serving fails.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts Options
	fs.StringVar(&opts.Profile, "profile", "", "idempotency profile, one of: "+strings.Join(Profiles, ", "))
	fs.StringVar(&opts.Listen, "listen", DefaultListen, "loopback `address` to listen on")
	fs.StringVar(&opts.PaymentsURL, "payments", os.Getenv("PAYMENTS_URL"), "base `URL` of the payments fake (default $PAYMENTS_URL)")
	fs.StringVar(&opts.EmailURL, "email", os.Getenv("EMAIL_URL"), "base `URL` of the email fake's HTTP API: orders also send a confirmation email (default $EMAIL_URL; empty: no email)")
	fs.BoolVar(&opts.EmailWithoutKey, "email-without-key", false, "send the confirmation email without the client's key (a planted flaw: a retry after a lost email reply sends it again)")
	fs.StringVar(&opts.StateDir, "state", "", "`directory` that survives restarts, for the durable key store (default: keep nothing)")
	fs.StringVar(&opts.Redis, "redis", os.Getenv("REDIS_ADDR"), "redis-* profiles: loopback `address` of the Redis server holding the keys (default $REDIS_ADDR)")
	fs.IntVar(&opts.Instance, "instance", 0, "`number` of this instance among several sharing one store (ids are drawn from a range of its own)")
	fs.DurationVar(&opts.Window, "window", DefaultWindow, "check-then-act only: busy-wait `gap` between the key lookup and the charge")
	fs.IntVar(&opts.Keys, "keys", envInt("SHOP_KEYS"), "bounded-keys only: how many `keys` the key store keeps (default $SHOP_KEYS, else 64)")
	fs.DurationVar(&opts.TTL, "ttl", 0, "expiring-keys only: how `long` the key store keeps a key (default 1s)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shop: unexpected arguments %q; all settings are flags\n", fs.Args())
		return exitUsage
	}
	if _, err := opts.resolve(); err != nil {
		fmt.Fprintf(stderr, "shop: %v\n", err)
		return exitUsage
	}
	err := Serve(ctx, opts, func(addr string) {
		fmt.Fprintf(stdout, "listening on http://%s\n", addr)
	})
	if err != nil {
		fmt.Fprintf(stderr, "shop: %v\n", err)
		return exitServe
	}
	return exitOK
}
