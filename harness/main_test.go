package harness_test

import (
	"os"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testpar"
)

// TestMain runs many of the package's parallel tests at once: most of
// their time is spent waiting (a late retry's delay, a slow target's
// timeout), not working.
func TestMain(m *testing.M) {
	testpar.AtLeast(16)
	os.Exit(m.Run())
}
