package ledger_test

import (
	"context"
	"os"
	"testing"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/ledger"
	"github.com/idemcheck/idemcheck/examples/reference"
)

// TestMain serves the ledger when the test binary is started as it: the
// tests run it as a real process.
func TestMain(m *testing.M) {
	reftest.TestMain(m, reference.Ledger, func(args []string) int {
		return ledger.Main(context.Background(), args, os.Stdout, os.Stderr)
	})
}
