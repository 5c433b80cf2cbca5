// Command clidb runs the reference expense-logging tool that keeps its
// expenses in its own database; see package
// github.com/idemcheck/idemcheck/examples/clidb for its profiles.
//
// Usage:
//
//	clidb --profile correct|check-then-insert --db postgres://…|sqlite:PATH add-expense --amount N --memo TEXT --idempotency-key K
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/examples/clidb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := clidb.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
