package shop_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

func TestMainRejectsBadUsage(t *testing.T) {
	t.Setenv("PAYMENTS_URL", "")
	stateFile := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(stateFile, nil, 0o600))
	for _, tc := range []struct {
		why    string
		args   []string
		stderr string
	}{
		{"an unknown profile lists the profiles", []string{"--profile", "nope", "--payments", "http://127.0.0.1:1"}, strings.Join(shop.Profiles, ", ")},
		{"a profile is required", []string{"--payments", "http://127.0.0.1:1"}, "mark-first"},
		{"an unknown flag", []string{"--profile", "correct", "--frobnicate"}, "frobnicate"},
		{"the payments URL is required", []string{"--profile", "correct"}, "PAYMENTS_URL"},
		{"the payments URL is absolute", []string{"--profile", "correct", "--payments", "127.0.0.1:4242"}, "absolute"},
		{"the shop listens on loopback only", []string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "--listen", "0.0.0.0:0"}, "not loopback"},
		{"a listen address is host:port", []string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "--listen", "localhost"}, "host:port"},
		{"positional arguments are a mistake", []string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "serve"}, "unexpected"},
		{"the state directory is a directory", []string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "--state", stateFile}, "is a file"},
		{"the window is not negative", []string{"--profile", "check-then-act", "--payments", "http://127.0.0.1:1", "--window", "-1ms"}, "out of range"},
		{"the window is bounded", []string{"--profile", "check-then-act", "--payments", "http://127.0.0.1:1", "--window", "1h"}, "out of range"},
		{"the window is a duration", []string{"--profile", "check-then-act", "--payments", "http://127.0.0.1:1", "--window", "50"}, "window"},
	} {
		var stdout, stderr bytes.Buffer
		code := shop.Main(context.Background(), tc.args, &stdout, &stderr)
		assert.Equal(t, 2, code, tc.why)
		assert.Contains(t, stderr.String(), tc.stderr, tc.why)
		assert.Empty(t, stdout.String(), tc.why)
	}
}

func TestMainServeErrorIsExit1(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()

	var stdout, stderr bytes.Buffer
	code := shop.Main(context.Background(),
		[]string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "--listen", taken.Addr().String()},
		&stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "listen on")
}

func TestMainPrintsReadyLineAndStopsOnCancel(t *testing.T) {
	pay := newPayments(t)
	// The payments URL comes from the environment by default.
	t.Setenv("PAYMENTS_URL", pay.URL())

	state := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		code := shop.Main(ctx, []string{"--profile", "correct", "--state", state}, pw, &stderr)
		pw.Close()
		exit <- code
	}()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, pr) // drain until Main returns
	}()

	line := mustReceive(t, lines, "the ready line")
	require.True(t, strings.HasPrefix(line, "listening on http://127.0.0.1:"), "ready line: %q", line)
	base := strings.TrimSuffix(strings.TrimPrefix(line, "listening on "), "\n")

	s := &testShop{url: base, client: &http.Client{Timeout: wait}}
	defer s.client.CloseIdleConnections()
	assert.Equal(t, http.StatusOK, s.get(t, "/healthz").Status)
	r := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	assert.Equal(t, http.StatusOK, r.Status, r)
	assert.Equal(t, 1, pay.Count())

	cancel()
	assert.Equal(t, 0, mustReceive(t, exit, "Main to return after cancel"), "stderr: %s", stderr.String())
}

func TestMainHelpIsNotAnError(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, shop.Main(context.Background(), []string{"-h"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-profile")
}
