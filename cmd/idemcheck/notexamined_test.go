package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoteRunSaysWhatItDidNotExamine: a service reached at a URL, not
// started by idemcheck, cannot be killed, so crash.recovery, which finds
// an in-memory store's worst flaw, is not examined. Every report format
// says so and why, and the score's reason carries it: a remote score is
// not mistaken for one that held under crashes.
func TestRemoteRunSaysWhatItDidNotExamine(t *testing.T) {
	t.Parallel()
	api := newCountingAPI() // keys in memory: a restart would forget them
	srv := httptest.NewServer(api)
	defer srv.Close()
	cfg := remoteConfig(t, srv.URL, "limits: {requests: 5000, per_second: 400}")
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, stdout, errs := runCLI(t, ctx, "run", "-c", cfg, "--format", "text,json,junit,md,html", "--out", out, "--trials", "0", "--seed", "7")
	require.Equal(t, exitOK, code, errs)

	const why = "a remote target takes only what a client can do: idemcheck cannot kill it"
	var rep map[string]any
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &rep))
	tr := targetReport(t, rep)
	reason, _ := tr["score_reason"].(string)
	assert.Contains(t, reason, "crash.recovery (under crash-", "the score carries what it could not examine")
	assert.Contains(t, reason, why)
	var crash []map[string]any
	for _, u := range tr["not_examined"].([]any) {
		m := u.(map[string]any)
		if m["check"] == "crash.recovery" {
			crash = append(crash, m)
		}
	}
	require.NotEmpty(t, crash, "not_examined lists crash.recovery: %v", tr["not_examined"])
	for _, m := range crash {
		assert.Equal(t, "unsupported", m["cause"])
		assert.Contains(t, m["reason"], why)
		assert.Contains(t, m["fault"], "crash-")
	}

	// The text report (stdout), and every file format, name it with the reason.
	flat := strings.Join(strings.Fields(stdout), " ")
	assert.True(t, strings.Contains(flat, "crash.recovery under crash-after-reply not examined: "+why), "the text report says it: %s", stdout)
	for _, name := range []string{"report.txt", "report.md", "report.xml", "report.html"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(b)), " ")
		assert.True(t, strings.Contains(text, "crash.recovery") && strings.Contains(text, "not examined") && strings.Contains(text, why), "%s says crash.recovery was not examined, and why", name)
	}
}
