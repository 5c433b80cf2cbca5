// Command mcpdb runs the reference task-tracker MCP server that keeps its
// tasks in its own database; see package
// github.com/idemcheck/idemcheck/examples/mcpdb for its profiles.
//
// Usage:
//
//	mcpdb --profile correct|session-keys --db postgres://…|sqlite:PATH
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemcheck/idemcheck/examples/mcpdb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := mcpdb.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
