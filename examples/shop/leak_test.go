package shop_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: Serve
// must wait for its server, and the shop's payments client must drop its
// idle connections.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
