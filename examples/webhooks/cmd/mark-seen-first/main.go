// Command mark-seen-first runs the reference webhook handler with the "mark-seen-first"
// profile; see package github.com/idemcheck/idemcheck/examples/webhooks for
// what it is built to show.
//
// Usage:
//
//	mark-seen-first --payments http://127.0.0.1:4242 --secret S [--listen 127.0.0.1:0] [--state DIR]
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/examples/webhooks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := webhooks.Main(ctx, append([]string{"--profile", "mark-seen-first"}, os.Args[1:]...), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
