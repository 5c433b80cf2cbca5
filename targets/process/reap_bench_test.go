package process_test

import (
	"os"
	"testing"

	"github.com/idemcheck/idemcheck/targets/process"
)

// BenchmarkKillTaggedNone is the cost every CLI call and every server
// incarnation pays at its end: one scan of /proc that finds nothing.
func BenchmarkKillTaggedNone(b *testing.B) {
	for b.Loop() {
		if n := process.KillTagged(process.ScopeVar + "=no-such-scope"); n != 0 {
			b.Fatalf("killed %d", n)
		}
	}
}

// BenchmarkKillTaggedSinceNone is the same scan limited to processes
// started from now on, as a call's end does: the environment of older
// processes is not read.
func BenchmarkKillTaggedSinceNone(b *testing.B) {
	since, _ := process.StartOf(os.Getpid())
	for b.Loop() {
		if n := process.KillTaggedSince(process.ScopeVar+"=no-such-scope", since); n != 0 {
			b.Fatalf("killed %d", n)
		}
	}
}
