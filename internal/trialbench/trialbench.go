package trialbench

import (
	"context"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/harness"
)

// Run verifies spec once with the seed 1 and opts to time its probes,
// untimed by the benchmark, then again with b.N trials, and reports
// "trials/s": the trials over the second run's time less the probes'.
// The trials run after the probes, not beside their late retries
// (spec.Isolated is cleared), so that the probes' time can be taken out.
// It fails on a target error or any counterexample, so a long run is also
// a check that the target passes every trial.
func Run(b *testing.B, spec harness.Spec, opts ...harness.Option) {
	b.Helper()
	spec.Isolated = false
	opts = append([]harness.Option{harness.WithSeed(1)}, opts...)
	start := time.Now()
	if _, err := harness.Verify(context.Background(), []harness.Spec{spec}, opts...); err != nil {
		b.Fatal(err)
	}
	probing := time.Since(start)
	b.ResetTimer()
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, append(opts, harness.WithTrials(b.N))...)
	if err != nil {
		b.Fatal(err)
	}
	tr := res.Targets[0]
	sc := tr.Scenario
	if tr.Error != "" || sc == nil || sc.Counterexample != nil {
		b.Fatalf("unexpected: %s %+v", tr.Error, sc)
	}
	b.ReportMetric(float64(sc.Trials)/max(b.Elapsed()-probing, time.Millisecond).Seconds(), "trials/s")
}
