package examples_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
)

// BenchmarkTrialsProcess measures generated trials per second against the
// correct shop run as a real process: each trial starts fresh fakes and a
// fresh process, and may kill and restart it. Each iteration is one trial.
func BenchmarkTrialsProcess(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	spec := examples.ShopSpec(exe, "correct")
	// Verify runs the probes before the trials: time them alone first,
	// and take that time out of the trials' (trials/s); ns/op keeps it.
	start := time.Now()
	if _, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1)); err != nil {
		b.Fatal(err)
	}
	probing := time.Since(start)
	b.ResetTimer()
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1), harness.WithTrials(b.N))
	if err != nil {
		b.Fatal(err)
	}
	sc := res.Targets[0].Scenario
	if sc == nil || sc.Counterexample != nil {
		b.Fatalf("unexpected: %+v", sc)
	}
	b.ReportMetric(float64(sc.Trials)/max(b.Elapsed()-probing, time.Millisecond).Seconds(), "trials/s")
}
