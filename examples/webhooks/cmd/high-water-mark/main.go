// Command high-water-mark runs the reference webhook handler with the "high-water-mark"
// profile; see package github.com/idemcheck/idemcheck/examples/webhooks for
// what it is built to show.
//
// Usage:
//
//	high-water-mark --payments http://127.0.0.1:4242 --secret S [--listen 127.0.0.1:0] [--state DIR]
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
	code := webhooks.Main(ctx, append([]string{"--profile", "high-water-mark"}, os.Args[1:]...), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
