package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeartbeat: while the probes run, a line says every heartbeatEvery
// which probe runs, of how many, for which checks, and how many attempts
// were made; the late retries are said as such; stopping it ends it.
func TestHeartbeat(t *testing.T) {
	old := heartbeatEvery
	heartbeatEvery = 5 * time.Millisecond
	defer func() { heartbeatEvery = old }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lines := make(chan string, 1000)
	s := NewSession(ctx, Spec{Name: "tool"}, Config{}, func(l string) {
		select {
		case lines <- l:
		default:
		}
	})
	h, stop := s.startHeartbeat()
	require.NotNil(t, h)
	h.at(2, 5, "burst", []string{"concurrent.duplicates"})
	h.called(1)
	h.called(20)
	wait := func(want string) {
		t.Helper()
		for {
			select {
			case l := <-lines:
				if strings.Contains(l, want) {
					assert.True(t, strings.HasPrefix(l, "tool: probing, "), l)
					return
				}
			case <-ctx.Done():
				t.Fatalf("no line with %q", want)
			}
		}
	}
	wait("probe 3 of 5 (burst, concurrent.duplicates): 21 attempts in ")
	h.tails()
	wait("probing, late retries: 21 attempts")
	stop()

	// Without progress, nothing is said and nothing runs.
	h, stop = NewSession(ctx, Spec{Name: "quiet"}, Config{}, nil).startHeartbeat()
	assert.Nil(t, h)
	h.at(0, 1, "x", nil)
	h.called(1)
	h.tails()
	stop()
}
