package faults_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: a proxy
// exchange, a forwarded request or a connection that outlives its test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
