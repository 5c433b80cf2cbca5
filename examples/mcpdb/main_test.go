package mcpdb_test

import (
	"context"
	"os"
	"testing"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/mcpdb"
	"github.com/idemcheck/idemcheck/examples/reference"
)

// TestMain serves MCP over stdio when the test binary is started as the
// server: every session in the tests is a real process.
func TestMain(m *testing.M) {
	reftest.TestMain(m, reference.MCPDB, func(args []string) int {
		return mcpdb.Main(context.Background(), args, os.Stdin, os.Stdout, os.Stderr)
	})
}
