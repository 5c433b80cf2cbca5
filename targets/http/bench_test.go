package http_test

import (
	"context"
	"fmt"
	"testing"
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
// instead of waiting.
func BenchmarkCheckHandlerDefault(b *testing.B) {
	b.Run("clock=wall", func(b *testing.B) { benchCheckHandler(b, newShop(false)) })
	b.Run("clock=env", func(b *testing.B) { benchCheckHandler(b, newShopExpiring(24*time.Hour, true, false)) })
}

func benchCheckHandler(b *testing.B, newHandler httptarget.NewHandler) {
	spec := httptarget.HandlerSpec(dryRunConfig, newHandler, payments.Starter(payments.Options{}))
	for i := 0; i < b.N; i++ {
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(uint64(i+1)), harness.WithTrials(harness.DefaultCheckTrials))
		if err != nil || res.Targets[0].Error != "" || len(res.Targets[0].Findings) > 0 {
			b.Fatalf("unexpected: %v %+v", err, res.Targets[0])
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
}
