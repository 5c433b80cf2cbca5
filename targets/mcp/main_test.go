package mcp_test

import (
	"context"
	"os"
	"testing"

	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/internal/testpar"
)

// serveArg makes the test binary a reference MCP server (see
// examples/mcp): the adapter's tests start it as a real process, over
// stdio or streamable HTTP.
const serveArg = "__mcp_server"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == serveArg {
		os.Exit(mcpexample.Main(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The tests wait on their servers more than they work.
	testpar.AtLeast(6)
	code := m.Run()
	refexe.Remove()
	os.Exit(code)
}

// serverCommand is the start of the command line of a reference MCP
// server, its flags to follow: the reference program built without the
// race detector (refexe), or, without the go command, this test binary.
func serverCommand(tb testing.TB) []string {
	tb.Helper()
	exe := refexe.Path(tb)
	if self, err := os.Executable(); err == nil && self == exe {
		return []string{exe, serveArg}
	}
	return []string{exe, reference.MCP}
}
