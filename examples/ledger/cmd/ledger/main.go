// Command ledger runs the reference ledger API, whose effects only a
// count can attribute; see package
// github.com/idemcheck/idemcheck/examples/ledger for its profiles.
//
// Usage:
//
//	ledger --profile correct|no-fingerprint|key-after-effect --db postgres://…|sqlite:PATH [--listen 127.0.0.1:0]
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/examples/ledger"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := ledger.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
