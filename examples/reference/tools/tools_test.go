package tools_test

import (
	"bytes"
	"context"
	"go/build"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/examples/reference/tools"
)

// TestToolsAreReferenceTargets: every target of this package is a
// reference target of the same name, which the full program runs too, so
// that a command line made for its own program runs unchanged with the
// full one; the servers that start once per run and are seldom restarted
// (the webhook handlers, the services on databases of their own, the
// queue consumers) are not among them.
func TestToolsAreReferenceTargets(t *testing.T) {
	assert.Equal(t, []string{"clidb", "jsonstore", "mcp", "mcpdb", "ordertool", "shop"}, tools.Names())
	all := reference.Names()
	for _, name := range tools.Names() {
		assert.Contains(t, all, name)
	}
	for _, name := range []string{reference.Webhooks, reference.Orders, reference.Consumer, reference.Pgpay} {
		assert.NotContains(t, tools.Names(), name)
	}
	m := tools.Mains()
	delete(m, tools.Ordertool)
	assert.Contains(t, tools.Names(), tools.Ordertool, "Mains is a copy")
}

// TestDispatch: a target runs by its name with the rest of the arguments;
// a missing or unknown name is exit 2 with the names there are.
func TestDispatch(t *testing.T) {
	ctx := context.Background()
	for _, main := range []func(context.Context, []string, *bytes.Buffer, *bytes.Buffer) int{
		func(ctx context.Context, args []string, o, e *bytes.Buffer) int {
			return tools.Main(ctx, args, nil, o, e)
		},
		func(ctx context.Context, args []string, o, e *bytes.Buffer) int {
			return reference.Main(ctx, args, nil, o, e)
		},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, 0, main(ctx, []string{tools.Ordertool, "--help"}, &out, &errs), errs.String())
		assert.Contains(t, out.String()+errs.String(), "create-order")

		errs.Reset()
		assert.Equal(t, 2, main(ctx, nil, &out, &errs))
		assert.Contains(t, errs.String(), "expected a reference target: clidb, ")

		errs.Reset()
		assert.Equal(t, 2, main(ctx, []string{"nope"}, &out, &errs))
		assert.Contains(t, errs.String(), `unknown reference target "nope": expected one of clidb, `)
	}
	var out, errs bytes.Buffer
	assert.Equal(t, 2, tools.Main(ctx, []string{reference.Webhooks}, nil, &out, &errs))
	assert.Equal(t, 0, reference.Main(ctx, []string{reference.Webhooks, "--help"}, nil, &out, &errs), errs.String())
}

// TestEveryToolHasAProgramOfItsOwn: each target of this package has a
// program, cmd/NAME, that imports its own target's package and
// program, nothing else, and program imports no reference target: the
// demo builds one per name and starts the target from it, and a start of
// it initialises only that target's packages.
func TestEveryToolHasAProgramOfItsOwn(t *testing.T) {
	const examples = "github.com/idemcheck/idemcheck/examples/"
	own := map[string]string{tools.MCP: examples + "mcp"}
	for _, name := range tools.Names() {
		pkg, err := build.ImportDir(filepath.Join("..", "cmd", name), 0)
		require.NoError(t, err, name)
		assert.Equal(t, "main", pkg.Name)
		target := own[name]
		if target == "" {
			target = examples + name
		}
		assert.ElementsMatch(t, []string{target, examples + "reference/program"}, pkg.Imports, "cmd/%s", name)
	}
	pkg, err := build.ImportDir(filepath.Join("..", "program"), 0)
	require.NoError(t, err)
	for _, imp := range pkg.Imports {
		assert.NotContains(t, imp, "idemcheck", "package program imports no reference target")
	}
}
