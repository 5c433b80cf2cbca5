package trialbench

import (
	"context"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/harness"
)

// Run verifies spec with the seed 1, opts and b.N trials, and reports
// "trials/s": the trials over the time they ran (ScenarioResult.Elapsed:
// the probes' time is left out). It fails on a target error or any
// counterexample, so a long run is also a check that the target passes
// every trial.
func Run(b *testing.B, spec harness.Spec, opts ...harness.Option) {
	b.Helper()
	opts = append([]harness.Option{harness.WithSeed(1), harness.WithTrials(b.N)}, opts...)
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	tr := res.Targets[0]
	sc := tr.Scenario
	if tr.Error != "" || sc == nil || sc.Counterexample != nil {
		b.Fatalf("unexpected: %s %+v", tr.Error, sc)
	}
	b.ReportMetric(float64(sc.Trials)/max(sc.Elapsed, time.Millisecond).Seconds(), "trials/s")
}
