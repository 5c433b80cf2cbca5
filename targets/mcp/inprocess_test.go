package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/mcp"
)

// A client that gives up sends notifications/cancelled: the server's
// handler sees its context cancelled.
func TestClientTimeoutCancelsTheCallOnTheServer(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{}, 1)
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{
		Name:        "slow_write",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`),
	}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return &sdk.CallToolResult{}, nil
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tg, err := mcp.New(ctx, mcp.Config{Name: "slow", Server: srv})
	require.NoError(t, err)
	defer tg.Close()
	rep := tg.Call(ctx, harness.Call{ID: "a-1", Operation: "slow_write", Marker: "idem-0000000000000001",
		Fault: &faults.ClientTimeout{Timeout: faults.Duration(50 * time.Millisecond)}})
	assert.Equal(t, harness.Info, rep.Outcome)
	select {
	case <-cancelled:
	case <-ctx.Done():
		t.Fatal("the server never saw notifications/cancelled")
	}
}

// harness.Check works on an in-process *sdk.Server: the correct reference
// server passes every check that applies without a process to crash.
func TestCheckInProcessServer(t *testing.T) {
	t.Parallel()
	spec := mcp.ServerSpec(mcp.Config{Name: "in-process"}, func(env *harness.Env) (*sdk.Server, error) {
		return mcpexample.NewServer("correct", env.Fakes["payments"].URL(), env.StateDir)
	}, examples.PaymentsFake)
	harness.Check(t, spec, harness.WithTrials(-1), harness.WithSeed(3))
}

// recorder is a harness.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) { r.errors = append(r.errors, format) }
func (r *recorder) Fatalf(format string, args ...any) { r.errors = append(r.errors, format) }
func (r *recorder) Failed() bool                      { return len(r.errors) > 0 }

// The other way: harness.Check fails on an in-process server without keys.
func TestCheckInProcessServerCatchesAFlaw(t *testing.T) {
	t.Parallel()
	spec := mcp.ServerSpec(mcp.Config{Name: "in-process-nokey"}, func(env *harness.Env) (*sdk.Server, error) {
		return mcpexample.NewServer("idempotent-liar", env.Fakes["payments"].URL(), env.StateDir)
	}, examples.PaymentsFake)
	rec := &recorder{TB: t}
	harness.Check(rec, spec, harness.WithTrials(-1), harness.WithSeed(3))
	assert.True(t, rec.Failed(), "a server that charges on every call fails the checks")
}

// harness.Check works on a stdio server given as a command.
func TestCheckCommand(t *testing.T) {
	t.Parallel()
	spec := mcp.Spec(mcp.Config{Name: "command", Command: append(serverCommand(t), "--profile", "correct",
		"--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}")}, nil, examples.PaymentsFake)
	harness.Check(t, spec, harness.WithTrials(-1), harness.WithSeed(3))
}
