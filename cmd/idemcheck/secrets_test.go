package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

func TestConfigSecretsFindsTheSigningSecret(t *testing.T) {
	f, err := config.Load("../../config/testdata/valid.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_valid_yaml"}, configSecrets(f))
}

func TestConfigSecretsHoldEnvValuesAndHeaderCredentials(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_SECRET_TOKEN", "tok_from_the_environment")
	f, err := config.Parse("idemcheck.yaml", []byte(`version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - name: charge
        mutating: true
        method: POST
        path: /charges
        headers: {Authorization: "Bearer {{env.IDEMCHECK_TEST_SECRET_TOKEN}}", Cookie: "session=abcdef123"}
        body: '{"description": "{{marker}}"}'
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"session=abcdef123", "tok_from_the_environment"}, configSecrets(f))
}

// A value taken from the environment with {{env.NAME}} reaches the
// target but no report: the target echoes it back in every reply, and
// every format, result.json and the terminal show [redacted] instead.
func TestEnvValueIsRedactedInEveryFormat(t *testing.T) {
	const token = "plainvalue-from-env-7731"
	t.Setenv("IDEMCHECK_TEST_SHOP_AUTH", token)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":"cannot authenticate with `+r.Header.Get("X-Shop-Auth")+`"}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: shop
    kind: http
    url: %q
    operations:
      - name: charge
        mutating: true
        method: POST
        path: /charges
        headers: {X-Shop-Auth: "{{env.IDEMCHECK_TEST_SHOP_AUTH}}"}
        body: '{"memo":"{{marker}}"}'
faults: []
retry: {max_attempts: 2}
`, srv.URL)), 0o644))
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, stdout, stderr := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "1",
		"--format", "text,json,junit,md,html", "--out", out)
	assert.Equal(t, exitHarness, code, "a target that never succeeds cannot be tested\n%s", stderr)
	assert.NotContains(t, stdout+stderr, token)
	files, err := filepath.Glob(filepath.Join(out, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContains(t, string(data), token, f)
		assert.Contains(t, string(data), "[redacted]", "%s: the echoed value was there, and redacted", f)
	}
}
