package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/harness"
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
	start := time.Now()
	noWait := harness.WithLateRetry(0, -1)
	if _, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(0)}, harness.WithSeed(1), noWait); err != nil {
		b.Fatal(err)
	}
	probing := time.Since(start)
	b.ResetTimer()
	res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(0)},
		harness.WithSeed(1), harness.WithTrials(b.N), noWait)
	if err != nil {
		b.Fatal(err)
	}
	sc := res.Targets[0].Scenario
	if sc == nil || sc.Counterexample != nil {
		b.Fatalf("unexpected: %+v", sc)
	}
	b.ReportMetric(float64(sc.Trials)/max(b.Elapsed()-probing, time.Millisecond).Seconds(), "trials/s")
}
