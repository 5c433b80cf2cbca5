package examples_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/internal/trialbench"
	"github.com/idemcheck/idemcheck/observe"
)

// BenchmarkTrialsProcess measures generated trials per second against the
// correct shop run as a real process, started from the program that
// carries it alone, as the demo starts it: each worker's trials share one
// process and its fakes, and a trial may kill and restart it; one worker,
// four (the default) or eight. Each iteration is one trial.
func BenchmarkTrialsProcess(b *testing.B) {
	for _, workers := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchProcess(b, workers) })
	}
}

func benchProcess(b *testing.B, workers int) {
	exe := refexe.Alone(b, examples.ShopName)
	trialbench.Run(b, examples.ShopSpec(exe, "correct"), harness.WithTrialWorkers(workers))
}

// BenchmarkRunShopDefault measures a default run of one HTTP target, the
// correct shop as a real process started from its own program: every
// probe and default fault, then the 25 trials idemcheck run generates by
// default (beside the probes' late retries). Each iteration is one whole
// run.
func BenchmarkRunShopDefault(b *testing.B) {
	exe := refexe.Alone(b, examples.ShopName)
	spec := examples.ShopSpec(exe, "correct")
	for i := 0; i < b.N; i++ {
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(uint64(i+1)), harness.WithTrials(25))
		if err != nil || res.Targets[0].Error != "" || len(res.Targets[0].Findings) > 0 {
			b.Fatalf("unexpected: %v %+v", err, res.Targets[0])
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
}

// BenchmarkTrialsMCP measures generated trials per second against the
// correct reference MCP server, over stdio (a process per session) and
// over streamable HTTP (one process, restarted for a crash): each of the
// default four workers' trials share a server and its fakes. Each
// iteration is one trial; the probes' time is left out.
func BenchmarkTrialsMCP(b *testing.B) {
	exe := refexe.Path(b)
	for _, name := range []string{"correct", "correct-http"} {
		b.Run(name, func(b *testing.B) {
			for _, p := range mcpexample.Profiles {
				if p.Name == name {
					trialbench.Run(b, examples.MCPSpec(exe, p))
				}
			}
		})
	}
}

// BenchmarkTrialsDelta measures generated trials per second against the
// correct ledger, its effects attributed by delta (a count of its
// transfers table read before and after each intent, so one trial at a
// time), beside the orders service counted by marker (an SQL query per
// attempt). Each iteration is one trial.
func BenchmarkTrialsDelta(b *testing.B) {
	exe := refexe.Path(b)
	b.Run("ledger-by-delta", func(b *testing.B) {
		trialbench.Run(b, examples.LedgerSpec(exe, "correct", "sqlite:{{state_dir}}/ledger.db"))
	})
	b.Run("orders-by-marker", func(b *testing.B) {
		trialbench.Run(b, examples.OrdersSpec(exe, "orders", "correct", "sqlite:{{state_dir}}/orders.db",
			observe.SQLStarter(examples.OrdersSQL("sqlite:{{state_dir}}/orders.db"))))
	})
}
