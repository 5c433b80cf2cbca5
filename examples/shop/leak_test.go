package shop_test

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// childEnv, when set, makes the test binary run shop.Main instead of the
// tests: the crash tests start it as a real process so that they can
// SIGKILL it, as the harness does.
const childEnv = "SHOP_TEST_CHILD"

// TestMain fails the package if any test leaves a goroutine behind: Serve
// must wait for its server, and the shop's payments client must drop its
// idle connections.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := shop.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
