package reference

import (
	"context"
	"io"
	"maps"
	"slices"

	"github.com/idemcheck/idemcheck/examples/consumers"
	"github.com/idemcheck/idemcheck/examples/ledger"
	"github.com/idemcheck/idemcheck/examples/orders"
	"github.com/idemcheck/idemcheck/examples/pgpay"
	"github.com/idemcheck/idemcheck/examples/redispay"
	"github.com/idemcheck/idemcheck/examples/reference/program"
	"github.com/idemcheck/idemcheck/examples/reference/tools"
	"github.com/idemcheck/idemcheck/examples/webhooks"
)

// The names of the reference targets, as Main takes them.
const (
	Shop      = tools.Shop
	Webhooks  = "webhooks"
	Ordertool = tools.Ordertool
	MCP       = tools.MCP
	Orders    = "orders"
	Ledger    = "ledger"
	JSONStore = tools.JSONStore
	MCPDB     = tools.MCPDB
	CLIDB     = tools.CLIDB
	Consumer  = "consumer"
	Pgpay     = "pgpay"
	Redispay  = "redispay"
)

// mains are the reference targets' main functions, by name: those of
// package tools (the command-line tools, the MCP servers and the shop)
// and the others.
var mains = func() map[string]program.MainFunc {
	m := tools.Mains()
	m[Webhooks] = program.WithoutStdin(webhooks.Main)
	m[Orders] = program.WithoutStdin(orders.Main)
	m[Ledger] = program.WithoutStdin(ledger.Main)
	m[Consumer] = program.WithoutStdin(consumers.Main)
	m[Pgpay] = program.WithoutStdin(pgpay.Main)
	m[Redispay] = program.WithoutStdin(redispay.Main)
	return m
}()

// Mains returns the reference targets' main functions, by name: a copy
// that the caller may change.
func Mains() map[string]program.MainFunc { return maps.Clone(mains) }

// Names returns the names of the reference targets, sorted.
func Names() []string {
	names := make([]string, 0, len(mains))
	for n := range mains {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Main runs the reference target named by args[0] with the rest of args,
// and returns its exit code: 2 for a missing or unknown name. The MCP
// servers read their requests from stdin (os.Stdin when nil).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program.Dispatch(ctx, mains, args, stdin, stdout, stderr)
}
