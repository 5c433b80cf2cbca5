package harness_test

import (
	"context"
	"testing"

	"github.com/idemcheck/idemcheck/harness"
)

// BenchmarkTrialsInProcess measures generated trials per second against
// the in-process correct target (a Go function, no sockets): the cost of
// generating, running and judging a trial. Each iteration is one trial.
func BenchmarkTrialsInProcess(b *testing.B) {
	b.ReportAllocs()
	res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(0)},
		harness.WithSeed(1), harness.WithTrials(b.N))
	if err != nil {
		b.Fatal(err)
	}
	sc := res.Targets[0].Scenario
	if sc == nil || sc.Counterexample != nil {
		b.Fatalf("unexpected: %+v", sc)
	}
	b.ReportMetric(float64(sc.Trials)/b.Elapsed().Seconds(), "trials/s")
}
