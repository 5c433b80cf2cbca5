package kit

import (
	"context"
	"errors"

	"github.com/idemcheck/idemcheck/brokers"
)

// Must starts a broker with start for a test and closes it when the test
// ends. It skips the test, saying why, when start fails with an error
// that is notInstalled (nil: never skips).
func Must[B interface{ Close() error }](tb brokers.TB, what string, notInstalled error,
	start func(context.Context, brokers.Options) (B, error), opts brokers.Options) B {
	tb.Helper()
	b, err := start(context.Background(), opts)
	if err != nil {
		if notInstalled != nil && errors.Is(err, notInstalled) {
			tb.Skipf("skipping: %v", err)
		}
		tb.Fatalf("starting %s: %v", what, err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("stopping %s: %v", what, err)
		}
	})
	return b
}
