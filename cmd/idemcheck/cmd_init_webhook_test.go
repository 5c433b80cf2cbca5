package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

// init --webhook writes a starter that run refuses, at the lines of its
// TODOs, until the path, the body and the secret are filled in; filled
// in, it loads, and the secret is never printed.
func TestInitWebhook(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "idemcheck.yaml")
	code, _, stderr := runCLI(t, ctx, "init", "--webhook", "http://127.0.0.1:{{port}}", "-o", out, "--", "./receiver", "--listen", "127.0.0.1:{{port}}")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	doc := string(b)
	assert.Contains(t, doc, "kind: webhook")
	assert.Contains(t, doc, `command: ["./receiver", "--listen", "127.0.0.1:{{port}}"]`)

	code, _, stderr = runCLI(t, ctx, "run", "-c", out)
	assert.Equal(t, exitUsage, code)
	lineOf := func(s string) int { return strings.Count(doc[:strings.Index(doc, s)], "\n") + 1 }
	for _, want := range []string{
		fmt.Sprintf("idemcheck.yaml:%d:15: targets[0].signature.secret: must not be empty: the signing secret", lineOf("secret: null")),
		fmt.Sprintf("idemcheck.yaml:%d:15: targets[0].events[0].path", lineOf("path: null")),
		fmt.Sprintf("idemcheck.yaml:%d:15: targets[0].events[0].body", lineOf("body: null")),
	} {
		assert.Contains(t, stderr, want)
	}

	filled := strings.Replace(doc, "secret: null", "secret: whsec_filled_in", 1)
	filled = strings.Replace(filled, "path: null", "path: /webhooks/payments", 1)
	filled = strings.Replace(filled, "body: null", `body: '{"id":"{{key}}","data":{"description":"invoice {{marker}}"}}'`, 1)
	filled = strings.Replace(filled, "name: TODO", "name: invoice.due", 1)
	_, err = config.Parse("idemcheck.yaml", []byte(filled))
	assert.NoError(t, err)

	code, _, stderr = runCLI(t, ctx, "init", "--webhook", "http://127.0.0.1:{{port}}")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give the command after --")
	code, _, stderr = runCLI(t, ctx, "init", "--webhook", "http://127.0.0.1:8080/hooks", "--", "./receiver", "--listen", "127.0.0.1:{{port}}")
	assert.Equal(t, exitUsage, code, "a server that listens on the port idemcheck picks is not reached at a fixed one")
	assert.Contains(t, stderr, "write {{port}} in the URL in place of the port, e.g. idemcheck init --webhook 'http://127.0.0.1:{{port}}/hooks' -- ./receiver --listen '127.0.0.1:{{port}}'")
	code, _, stderr = runCLI(t, ctx, "init", "--webhook", "ftp://x", "--http", "http://127.0.0.1:1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--http and --webhook: give one kind of target at a time")
}
