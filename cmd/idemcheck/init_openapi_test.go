package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInitOpenAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	spec := filepath.Join("..", "..", "examples", "orders", "openapi.yaml")

	code, out, errs := runCLI(t, ctx, "init", "--openapi", spec)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "key_header: Idempotency-Key")
	assert.Contains(t, out, `body: '{"amount":{{input.amount}},"customer":"{{input.customer}}","note":"orders {{marker}}"}'`)

	file := filepath.Join(t.TempDir(), "orders.yaml")
	code, _, errs = runCLI(t, ctx, "init", "--openapi", spec, "-o", file, "--name", "shop-orders")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "wrote "+file+" with 2 operations; run: idemcheck run -c "+file)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(b), "- name: shop-orders")

	code, _, errs = runCLI(t, ctx, "init", "--openapi", spec, "-o", file)
	assert.Equal(t, exitUsage, code, "never overwrites")
	assert.Contains(t, errs, "already exists")

	code, _, errs = runCLI(t, ctx, "init", "--openapi", filepath.Join("..", "..", "openapi", "testdata", "payments.json"), "-o", filepath.Join(t.TempDir(), "p.yaml"))
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "fill in these TODOs")
	assert.Contains(t, errs, "line 15: key_header: the spec declares no idempotency key header")

	bad := filepath.Join(t.TempDir(), "swagger.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"swagger":"2.0","info":{"title":"x","version":"1"},"paths":{}}`), 0o600))
	code, _, errs = runCLI(t, ctx, "init", "--openapi", bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "expected an OpenAPI 3.0 or 3.1 document")

	code, _, errs = runCLI(t, ctx, "init", "--openapi", spec, "--", "./tool")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "unexpected arguments")
}
