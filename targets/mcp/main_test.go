package mcp_test

import (
	"context"
	"os"
	"testing"

	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
)

// serveArg makes the test binary a reference MCP server (see
// examples/mcp): the adapter's tests start it as a real process, over
// stdio or streamable HTTP.
const serveArg = "__mcp_server"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == serveArg {
		os.Exit(mcpexample.Main(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
