package webhooks_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/webhooks"
)

func TestMainRejectsBadUsage(t *testing.T) {
	t.Setenv("PAYMENTS_URL", "")
	t.Setenv("WEBHOOK_SECRET", "")
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	ok := []string{"--payments", "http://127.0.0.1:1", "--secret", "s"}
	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{ok, "profile is required"},
		{append([]string{"--profile", "nope"}, ok...), "no-signature"},
		{[]string{"--profile", "correct", "--secret", "s"}, "PAYMENTS_URL"},
		{[]string{"--profile", "correct", "--payments", "http://127.0.0.1:1"}, "WEBHOOK_SECRET"},
		{append([]string{"--profile", "correct", "--listen", "0.0.0.0:0"}, ok...), "not loopback"},
		{append([]string{"--profile", "correct", "--state", file}, ok...), "is a file"},
		{append([]string{"--profile", "correct", "--lease", "-1s"}, ok...), "negative"},
		{append([]string{"--profile", "correct", "extra"}, ok...), "unexpected"},
		{[]string{"--frobnicate"}, "frobnicate"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, webhooks.Main(context.Background(), tc.args, &stdout, &stderr), strings.Join(tc.args, " "))
		assert.Contains(t, stderr.String(), tc.mention, strings.Join(tc.args, " "))
		assert.Empty(t, stdout.String())
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, webhooks.Main(context.Background(), []string{"-h"}, &stdout, &stderr))
}

func TestMainServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	exit := make(chan int, 1)
	go func() {
		code := webhooks.Main(ctx, []string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "--secret", "s", "--state", t.TempDir()}, pw, os.Stderr)
		pw.Close()
		exit <- code
	}()
	line := make([]byte, 64)
	n, err := pr.Read(line)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(line[:n]), "listening on http://127.0.0.1:"), string(line[:n]))
	cancel()
	assert.Equal(t, 0, <-exit)
}
