package harness_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/trialbench"
)

// BenchmarkTrialsInProcess measures generated trials per second against
// the in-process correct target (a Go function, no sockets): the cost of
// generating, running and judging a trial. Each iteration is one trial;
// the probes' time is measured apart and taken out (their late retries do
// not wait here, so that it stays small beside the trials'). It fails on
// any counterexample, so a run of 10,000 is also a check that the correct
// target passes them all.
func BenchmarkTrialsInProcess(b *testing.B) {
	b.ReportAllocs()
	trialbench.Run(b, lruSpec(0), harness.WithLateRetry(0, -1))
}
