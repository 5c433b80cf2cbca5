package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

func TestUsage(t *testing.T) {
	var errb bytes.Buffer
	code := mcp.Main(context.Background(), []string{"--profile", "nope", "--payments", "http://127.0.0.1:9"}, strings.NewReader(""), io.Discard, &errb)
	assert.Equal(t, 2, code)
	assert.Contains(t, errb.String(), "unknown profile")
	errb.Reset()
	code = mcp.Main(context.Background(), []string{"--listen", "0.0.0.0:0", "--payments", "http://127.0.0.1:9", "--profile", "nokey"}, strings.NewReader(""), io.Discard, &errb)
	assert.Equal(t, 2, code, "loopback only")
}

// The stdio server ends when its input ends, as an MCP host expects.
func TestStdioServerEndsWithItsInput(t *testing.T) {
	done := make(chan int, 1)
	go func() {
		done <- mcp.Main(context.Background(), []string{"--profile", "nokey", "--payments", "http://127.0.0.1:9"}, strings.NewReader(""), io.Discard, io.Discard)
	}()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end when stdin did")
	}
}

// correctServer serves the correct profile in memory, over a payments
// fake that records into the returned ledger, and returns a caller of
// its create_payment tool: the structured result, and whether it is an
// error. Everything is closed when the test ends.
func correctServer(t *testing.T) (*fakes.Ledger, *payments.Server, func(args map[string]any) (map[string]any, bool)) {
	t.Helper()
	ledger := fakes.NewLedger()
	pay, err := payments.New(payments.Options{Ledger: ledger})
	require.NoError(t, err)
	t.Cleanup(func() { _ = pay.Close() })
	srv, err := mcp.NewServer("correct", pay.URL(), t.TempDir())
	require.NoError(t, err)
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return ledger, pay, func(args map[string]any) (map[string]any, bool) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_payment", Arguments: args})
		require.NoError(t, err)
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m, res.IsError
	}
}

// The correct server's create_payment: the key claimed, replayed as noop,
// passed downstream; a missing key refused with status 400; a reused key
// with other arguments refused with 422; a dry run acts not.
func TestCorrectCreatePayment(t *testing.T) {
	ledger, _, call := correctServer(t)
	args := map[string]any{"customer": "cus_1", "amount": 500, "description": "idem-00000000000000aa", "idempotency_key": "k1"}
	first, isErr := call(args)
	require.False(t, isErr, "%v", first)
	assert.Equal(t, "created", first["effect"])
	again, _ := call(args)
	assert.Equal(t, "noop", again["effect"])
	assert.Equal(t, true, again["replayed"])
	require.Len(t, ledger.Effects(), 1)
	assert.Equal(t, "k1", ledger.Effects()[0].Key, "the key goes downstream")

	args["amount"] = 600
	reused, isErr := call(args)
	assert.True(t, isErr)
	assert.EqualValues(t, 422, reused["status"])
	delete(args, "idempotency_key")
	missing, isErr := call(args)
	assert.True(t, isErr)
	assert.EqualValues(t, 400, missing["status"])
	args["idempotency_key"], args["dry_run"] = "k2", true
	dry, _ := call(args)
	assert.Equal(t, "would_create", dry["effect"])
	assert.Len(t, ledger.Effects(), 1, "refusals and dry runs charge nothing")
}

// After a call whose charge happened but whose reply was lost (payments
// answered 503 after charging), the key stays bound to its arguments:
// other arguments under it are refused with 422, and the retry of the
// first call completes it with the charge it made.
func TestCorrectFailedCallKeepsTheKeyBoundToItsArguments(t *testing.T) {
	ledger, pay, call := correctServer(t)
	pay.Arm(fakes.Rule{Action: fakes.FailAfter})
	args := map[string]any{"customer": "cus_1", "amount": 500, "description": "idem-00000000000000ab", "idempotency_key": "k1"}
	failed, isErr := call(args)
	require.True(t, isErr, "%v", failed)
	require.Len(t, ledger.Effects(), 1, "payments charged before it failed")

	other := map[string]any{"customer": "cus_1", "amount": 600, "description": "idem-00000000000000ab", "idempotency_key": "k1"}
	reused, isErr := call(other)
	assert.True(t, isErr)
	assert.EqualValues(t, 422, reused["status"], "%v", reused)

	retry, isErr := call(args)
	require.False(t, isErr, "%v", retry)
	assert.Equal(t, "created", retry["effect"], "the first success the caller sees")
	assert.Len(t, ledger.Effects(), 1, "the charge the failed call made, replayed by payments")
}
