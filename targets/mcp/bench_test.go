package mcp_test

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/mcp"
	"github.com/idemcheck/idemcheck/targets/process"
)

// BenchmarkToolCall measures tool calls per second to the reference
// server's lookup_payment (one read at the payments fake per call): with
// the SDK's own client straight to the server, and through the adapter
// (over stdio through the fault relay, over HTTP through the fault proxy).
//
//	go test -run=NONE -bench=ToolCall -benchtime=2000x ./targets/mcp/
func BenchmarkToolCall(b *testing.B) {
	pay, err := payments.New(payments.Options{Ledger: fakes.NewLedger()})
	require.NoError(b, err)
	defer pay.Close()
	state := b.TempDir()
	cmd := append(serverCommand(b), "--profile", "correct", "--payments", pay.URL(), "--state", state)
	args := map[string]any{"customer": "cus_bench", "query": "idem-0000000000000000"}
	ctx := context.Background()

	direct := func(b *testing.B, tr sdk.Transport) {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, tr, nil)
		require.NoError(b, err)
		defer cs.Close()
		b.ResetTimer()
		for range b.N {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lookup_payment", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("call: %v %v", err, res)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	}
	adapter := func(b *testing.B, tg *mcp.Target) {
		defer tg.Close()
		b.ResetTimer()
		for i := range b.N {
			rep := tg.Call(ctx, harness.Call{ID: fmt.Sprintf("b-%d", i), Operation: "lookup_payment", Marker: "idem-0000000000000000",
				Inputs: map[string]string{"customer": "cus_bench"}})
			if rep.Outcome != harness.OK {
				b.Fatalf("call: %s", rep.Error)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	}

	b.Run("stdio/direct", func(b *testing.B) {
		c := exec.Command(cmd[0], cmd[1:]...)
		direct(b, &sdk.CommandTransport{Command: c})
	})
	b.Run("stdio/relay", func(b *testing.B) {
		tg, err := mcp.New(ctx, mcp.Config{Name: "bench", Command: cmd})
		require.NoError(b, err)
		adapter(b, tg)
	})
	port, err := process.FreePort()
	require.NoError(b, err)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	proc, err := process.Start(ctx, process.Spec{Command: append(cmd, "--listen", addr), Ready: process.Ready{URL: "http://" + addr + "/healthz"}})
	require.NoError(b, err)
	defer func() {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = proc.Stop(sctx)
	}()
	b.Run("http/direct", func(b *testing.B) {
		direct(b, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", DisableStandaloneSSE: true})
	})
	b.Run("http/proxy", func(b *testing.B) {
		tg, err := mcp.New(ctx, mcp.Config{Name: "bench", URL: "http://" + addr + "/mcp"})
		require.NoError(b, err)
		adapter(b, tg)
	})
}
