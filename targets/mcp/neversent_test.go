package mcp

import (
	"context"
	"errors"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNeverSent: the SDK's refusal of a call on a closed session is told
// apart from a call that was sent and then failed (here, given up).
func TestNeverSent(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "wait"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &sdk.CallToolResult{}, nil, nil
	})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)

	short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
	_, err = cs.CallTool(short, &sdk.CallToolParams{Name: "wait"})
	stop()
	require.Error(t, err)
	assert.False(t, neverSent(err), "a call sent and given up: %v", err)

	require.NoError(t, cs.Close())
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait"})
	require.Error(t, err)
	assert.True(t, neverSent(err), "a call on a closed session: %v", err)

	assert.False(t, neverSent(nil))
	assert.False(t, neverSent(errors.New("client is closing")), "only the SDK's closed-connection error")
}
