package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// init --http writes a starter that run refuses, at the lines of its
// TODOs, until they are filled in; filled in, it scores a correct API 3
// and a flawed one lower.
func TestInitHTTP(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var doc string
	for _, tc := range []struct {
		name   string
		flawed bool
		want   int
	}{{"correct", false, exitOK}, {"forgets its keys", true, exitBelow}} {
		api := newCountingAPI()
		api.forgetKeys = tc.flawed
		srv := httptest.NewServer(api)
		out := filepath.Join(t.TempDir(), "idemcheck.yaml")
		code, _, stderr := runCLI(t, ctx, "init", "--http", srv.URL, "-o", out)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, "then run: idemcheck run -c "+out)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		doc = string(b)
		assert.Contains(t, doc, fmt.Sprintf("url: %q", srv.URL))
		assert.NotContains(t, doc, "allow_remote", "a loopback server is not remote")

		code, _, stderr = runCLI(t, ctx, "run", "-c", out)
		assert.Equal(t, exitUsage, code, "TODOs left: %s", stderr)
		for _, field := range []string{"targets[0].observe[0].http.path", "targets[0].operations[0].path"} {
			assert.Contains(t, stderr, field, "each TODO left is reported")
		}
		assert.Contains(t, stderr, fmt.Sprintf("idemcheck.yaml:%d:", lineOf(doc, "path: null   # TODO: the endpoint")))

		filled := strings.Replace(doc, "http: {path: null, items: data}", `http: {path: "/v1/orders?search={{marker}}", items: data}`, 1)
		filled = strings.Replace(filled, "path: null   # TODO: the endpoint", "path: /v1/orders   # the endpoint", 1)
		filled = strings.Replace(filled, "body: null   # TODO:", `body: '{"note":"order {{marker}} {{input.amount}}"}'   #`, 1)
		filled = strings.Replace(filled, "# inputs: {amount:", "inputs: {amount:", 1)
		filled = strings.Replace(filled, "# dry_run: {query: dry_run}", "dry_run: {query: dry_run}", 1)
		require.NoError(t, os.WriteFile(out, []byte(filled), 0o644))
		code, stdout, stderr := runCLI(t, ctx, "run", "-c", out, "--trials", "0", "--seed", "7")
		assert.Equal(t, tc.want, code, "%s: %s\n%s", tc.name, stdout, stderr)
		srv.Close()
	}

	code, _, stderr := runCLI(t, ctx, "init", "--http", "http://127.0.0.1:8080", "--openapi", "spec.yaml")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--openapi and --http: give one kind of target at a time")
	code, _, stderr = runCLI(t, ctx, "init", "--http", "ftp://example.com")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--http "ftp://example.com": expected the API's base URL`)
	code, _, stderr = runCLI(t, ctx, "init", "--http", "http://127.0.0.1:{{port}}")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give the command after --")
	code, stdout, stderr := runCLI(t, ctx, "init", "--http", "https://api.example.com", "--name", "vendor")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "allow_remote: true", "a server elsewhere is marked remote")
	assert.Contains(t, stdout, `name: "vendor"`)
	code, stdout, stderr = runCLI(t, ctx, "init", "--http", "http://127.0.0.1:{{port}}", "--", "./server", "--port", "{{port}}")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `command: ["./server", "--port", "{{port}}"]`)
	assert.Contains(t, stdout, `name: "server"`)
}

// lineOf is the 1-based line of doc where s first appears.
func lineOf(doc, s string) int {
	return strings.Count(doc[:strings.Index(doc, s)], "\n") + 1
}
