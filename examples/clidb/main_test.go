package clidb_test

import (
	"context"
	"os"
	"testing"

	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/reference"
)

// TestMain runs the tool when the test binary is started as it: every
// call in the tests is a real process.
func TestMain(m *testing.M) {
	reftest.TestMain(m, reference.CLIDB, func(args []string) int {
		return clidb.Main(context.Background(), args, os.Stdout, os.Stderr)
	})
}
