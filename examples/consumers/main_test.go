package consumers_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/nats"
	"github.com/idemcheck/idemcheck/examples/consumers"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

func TestMainRejectsBadUsage(t *testing.T) {
	t.Setenv("PAYMENTS_URL", "")
	t.Setenv("BROKER_URL", "")
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	base := []string{"--url", "nats://127.0.0.1:1", "--payments", "http://127.0.0.1:1"}
	for _, tc := range []struct {
		why    string
		args   []string
		stderr string
	}{
		{"an unknown profile lists the profiles", append([]string{"--profile", "nope"}, base...), strings.Join(consumers.Profiles, ", ")},
		{"an unknown broker lists the brokers", append([]string{"--profile", "none", "--broker", "mq"}, base...), "nats"},
		{"the broker URL is required", []string{"--profile", "none", "--payments", "http://127.0.0.1:1"}, "BROKER_URL"},
		{"the payments URL is required", []string{"--profile", "none", "--url", "nats://127.0.0.1:1"}, "PAYMENTS_URL"},
		{"a durable profile needs a state directory", append([]string{"--profile", "correct"}, base...), "--state"},
		{"the state directory is a directory", append([]string{"--profile", "correct", "--state", file}, base...), "existing directory"},
		{"the ack wait is positive", append([]string{"--profile", "none", "--ack-wait", "0s"}, base...), "out of range"},
		{"workers are bounded", append([]string{"--profile", "none", "--workers", "0"}, base...), "out of range"},
		{"positional arguments are a mistake", append([]string{"--profile", "none", "run"}, base...), "unexpected"},
		{"an unknown flag", []string{"--frobnicate"}, "frobnicate"},
	} {
		var stdout, stderr bytes.Buffer
		code := consumers.Main(context.Background(), tc.args, &stdout, &stderr)
		assert.Equal(t, 2, code, tc.why)
		assert.Contains(t, stderr.String(), tc.stderr, tc.why)
		assert.Empty(t, stdout.String(), tc.why)
	}
}

func TestMainUnreachableBrokerIsExit1(t *testing.T) {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := consumers.Main(ctx, []string{"--profile", "none", "--url", "nats://127.0.0.1:1", "--payments", "http://127.0.0.1:1"}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "connect to nats://127.0.0.1:1")
}

func TestRunStopsWhenCancelled(t *testing.T) {
	b := nats.Must(t, brokers.Options{})
	pay := payments.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{ready: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- consumers.Run(ctx, consumers.Options{Profile: "none", URL: b.URL(), Topic: brokers.DefaultTopic,
			Group: brokers.DefaultGroup, AckWait: time.Second, Payments: pay.URL(), Workers: 1}, out, out)
	}()
	select {
	case <-out.ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("not consuming within 10s: %s", out.String())
	}
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context's end")
	}
	assert.Contains(t, out.String(), "consuming events from nats as consumers (profile none)")
}
