package http_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/trialbench"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// BenchmarkTrialsHandler measures generated trials per second against the
// careful handler of handler_test.go served on a loopback port, with the
// payments fake and the fault proxy in front of it, as CheckHandler runs
// it: each worker's trials share a running handler; one worker, four (the
// default) or eight. Each iteration is one trial; the probes' time is
// left out.
func BenchmarkTrialsHandler(b *testing.B) {
	for _, workers := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchHandler(b, workers) })
	}
}

func benchHandler(b *testing.B, workers int) {
	spec := httptarget.HandlerSpec(dryRunConfig, newShop(false), payments.Starter(payments.Options{}))
	trialbench.Run(b, spec, harness.WithTrialWorkers(workers))
}

// BenchmarkCheckHandlerDefault measures what a default go test check of
// the careful handler costs: one Verify with DefaultCheckTrials trials,
// as harness.Check runs it (the trials beside the probes' late retries).
// Each iteration is one whole check.
//
// clock=wall is the handler as it is, its keys never stamped: the late
// retry waits DefaultLateDelay on the wall clock. clock=env stamps each
// key with env.Now and keeps it a day: the probes move that clock on
// instead of waiting. clock=bubble is the handler of clock=wall checked
// inside a bubble of testing/synctest, each check a bubble of its own:
// every wait passes on the bubble's clock, at once.
func BenchmarkCheckHandlerDefault(b *testing.B) {
	b.Run("clock=wall", func(b *testing.B) { benchCheckHandler(b, newShop(false), false) })
	b.Run("clock=env", func(b *testing.B) { benchCheckHandler(b, newShopExpiring(24*time.Hour, true, false), false) })
	b.Run("clock=bubble", func(b *testing.B) { benchCheckHandler(b, newShop(false), true) })
}

func benchCheckHandler(b *testing.B, newHandler httptarget.NewHandler, bubbled bool) {
	spec := httptarget.HandlerSpec(dryRunConfig, newHandler, payments.Starter(payments.Options{}))
	check := func(tb testing.TB, seed uint64) {
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(seed), harness.WithTrials(harness.DefaultCheckTrials))
		if err != nil || res.Targets[0].Error != "" || len(res.Targets[0].Findings) > 0 {
			tb.Fatalf("unexpected: %v %+v", err, res.Targets[0])
		}
	}
	if !bubbled {
		for i := 0; i < b.N; i++ {
			check(b, uint64(i+1))
		}
	} else {
		// A bubble needs a *testing.T: the checks run as a test of their
		// own, within the benchmark's time.
		ok := testing.RunTests(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{
			Name: b.Name(),
			F: func(t *testing.T) {
				for i := 0; i < b.N; i++ {
					synctest.Test(t, func(t *testing.T) { check(t, uint64(i+1)) })
				}
			},
		}})
		if !ok {
			b.Fatal("a check in a bubble failed")
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
}

// BenchmarkVerifyTargets measures how one run's cost grows with its
// targets: one Verify over 1, 10 and 50 handlers (the careful one, its
// keys kept by env.Now so that the late retry does not wait; every probe
// and default fault; no trials), with the default four targets at once.
// Each iteration is one run; the figures are per target: time
// (s/target) and bytes allocated (B/target); idemcheck's peak memory is
// measured as a whole process (docs/performance.md).
func BenchmarkVerifyTargets(b *testing.B) {
	for _, n := range []int{1, 10, 50} {
		b.Run(fmt.Sprintf("targets=%d", n), func(b *testing.B) {
			specs := make([]harness.Spec, n)
			for i := range specs {
				cfg := dryRunConfig
				cfg.Name = fmt.Sprintf("shop-%02d", i)
				specs[i] = httptarget.HandlerSpec(cfg, newShopExpiring(24*time.Hour, true, false), payments.Starter(payments.Options{}))
			}
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			for i := 0; i < b.N; i++ {
				res, err := harness.Verify(context.Background(), specs, harness.WithSeed(uint64(i+1)))
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range res.Targets {
					if tr.Error != "" || len(tr.Findings) > 0 {
						b.Fatalf("unexpected: %+v", tr)
					}
				}
			}
			runtime.ReadMemStats(&ms1)
			per := float64(b.N * n)
			b.ReportMetric(b.Elapsed().Seconds()/per, "s/target")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/per, "B/target")
		})
	}
}
