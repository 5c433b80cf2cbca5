package reference

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/consumers"
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	"github.com/idemcheck/idemcheck/examples/ledger"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/examples/mcpdb"
	"github.com/idemcheck/idemcheck/examples/orders"
	"github.com/idemcheck/idemcheck/examples/ordertool"
	"github.com/idemcheck/idemcheck/examples/pgpay"
	"github.com/idemcheck/idemcheck/examples/redispay"
	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/examples/webhooks"
)

// The names of the reference targets, as Main takes them.
const (
	Shop      = "shop"
	Webhooks  = "webhooks"
	Ordertool = "ordertool"
	MCP       = "mcp"
	Orders    = "orders"
	Ledger    = "ledger"
	JSONStore = "jsonstore"
	MCPDB     = "mcpdb"
	CLIDB     = "clidb"
	Consumer  = "consumer"
	Pgpay     = "pgpay"
	Redispay  = "redispay"
)

// mains are the reference targets' main functions, by name.
var mains = map[string]func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	Shop: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int { return shop.Main(ctx, a, o, e) },
	Webhooks: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return webhooks.Main(ctx, a, o, e)
	},
	Ordertool: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return ordertool.Main(ctx, a, o, e)
	},
	MCP: mcpexample.Main,
	Orders: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return orders.Main(ctx, a, o, e)
	},
	Ledger: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return ledger.Main(ctx, a, o, e)
	},
	JSONStore: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return jsonstore.Main(ctx, a, o, e)
	},
	MCPDB: mcpdb.Main,
	CLIDB: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return clidb.Main(ctx, a, o, e)
	},
	Consumer: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return consumers.Main(ctx, a, o, e)
	},
	Pgpay: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return pgpay.Main(ctx, a, o, e)
	},
	Redispay: func(ctx context.Context, a []string, _ io.Reader, o, e io.Writer) int {
		return redispay.Main(ctx, a, o, e)
	},
}

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
	if len(args) == 0 {
		fmt.Fprintf(stderr, "expected a reference target: %s\n", strings.Join(Names(), ", "))
		return 2
	}
	main, ok := mains[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "unknown reference target %q: expected one of %s\n", args[0], strings.Join(Names(), ", "))
		return 2
	}
	if stdin == nil {
		stdin = os.Stdin
	}
	return main(ctx, args[1:], stdin, stdout, stderr)
}
