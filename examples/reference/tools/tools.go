package tools

import (
	"context"
	"io"
	"maps"
	"slices"

	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/examples/mcpdb"
	"github.com/idemcheck/idemcheck/examples/ordertool"
	"github.com/idemcheck/idemcheck/examples/reference/program"
	"github.com/idemcheck/idemcheck/examples/shop"
)

// The names of the targets this package starts, as Main takes them. Each
// is also the name of a program of its own, built from
// examples/reference/cmd/NAME, that carries that target alone.
const (
	Ordertool = "ordertool"
	MCP       = "mcp"
	JSONStore = "jsonstore"
	MCPDB     = "mcpdb"
	CLIDB     = "clidb"
	Shop      = "shop"
)

// mains are this package's targets' main functions, by name.
var mains = map[string]program.MainFunc{
	Ordertool: program.WithoutStdin(ordertool.Main),
	MCP:       mcpexample.Main,
	JSONStore: program.WithoutStdin(jsonstore.Main),
	MCPDB:     mcpdb.Main,
	CLIDB:     program.WithoutStdin(clidb.Main),
	Shop:      program.WithoutStdin(shop.Main),
}

// Mains returns this package's targets' main functions, by name: a copy
// that the caller may add to.
func Mains() map[string]program.MainFunc { return maps.Clone(mains) }

// Names returns the names of this package's targets, sorted.
func Names() []string { return slices.Sorted(maps.Keys(mains)) }

// Main runs the target of this package named by args[0] with the rest of
// args, and returns its exit code (see program.Dispatch).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program.Dispatch(ctx, mains, args, stdin, stdout, stderr)
}
