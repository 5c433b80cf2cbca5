package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/reports"
)

func TestConfigSecretsFindsTheSigningSecret(t *testing.T) {
	f, err := config.Load("../../config/testdata/valid.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_valid_yaml"}, f.Secrets())
	assert.Subset(t, configSecrets(f), f.Secrets())
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
	assert.Equal(t, []string{"session=abcdef123", "tok_from_the_environment"}, f.Secrets())
	assert.Subset(t, configSecrets(f), f.Secrets(), "the configuration's secrets, then the environment's")
}

// A value written as is into a started target's environment (start.env,
// env) is a secret when its name or its shape says so, and it is long
// enough to be one: the target may print it back. A setting (a mode, a
// region) is not: redacting it would cut it out of target names, file
// names and replay commands.
func TestConfigSecretsHoldLiteralEnvValues(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(`version: 1
fakes: {payments: {}}
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:{{port}}
    start:
      command: [./shop, --port, "{{port}}"]
      env: {STRIPE_KEY: rk_live_Zq81mNp0aa, LANG: C.UTF-8, SHOP_MODE: fast, PAYMENTS_URL: "{{fakes.payments.url}}",
            MODE: ack-first-then-charge, HOOK_SIGNING_SECRET: plain-words-here, UPSTREAM: a8Fk29sLq0Zm4nB7x, ADMIN_PW: correcthorsebattery}
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{"description": "{{marker}}"}'}
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"ADMIN_PW=correcthorsebattery", "HOOK_SIGNING_SECRET=plain-words-here", "LANG=C.UTF-8", "MODE=ack-first-then-charge", "SHOP_MODE=fast", "STRIPE_KEY=rk_live_Zq81mNp0aa", "UPSTREAM=a8Fk29sLq0Zm4nB7x"},
		f.EnvSettings(), "placeholders are filled in at run time, not secrets written in the file")
	got := configSecrets(f)
	assert.Contains(t, got, "rk_live_Zq81mNp0aa", "named a key")
	assert.Contains(t, got, "plain-words-here", "named a secret")
	assert.Contains(t, got, "correcthorsebattery", "named a password")
	assert.Contains(t, got, "a8Fk29sLq0Zm4nB7x", "shaped like a token")
	assert.NotContains(t, got, "C.UTF-8", "LANG is safe")
	assert.NotContains(t, got, "fast", "too short and common to be a secret")
	assert.NotContains(t, got, "ack-first-then-charge", "a setting, named and shaped as one")

	t.Setenv("IDEMCHECK_SAFE_ENV", "STRIPE_KEY")
	assert.NotContains(t, configSecrets(f), "rk_live_Zq81mNp0aa", "marked safe in idemcheck's own environment")
}

// A value taken from the environment with {{env.NAME}} reaches the
// target but no report: the target echoes it back in every reply, and
// every format, result.json and the terminal show [redacted] instead.
func TestEnvValueIsRedactedInEveryFormat(t *testing.T) {
	const token = "plainvalue-from-env-7731"
	t.Setenv("IDEMCHECK_TEST_SHOP_AUTH", token)
	terminal, files := runEchoing(t, `headers: {X-Shop-Auth: "{{env.IDEMCHECK_TEST_SHOP_AUTH}}"}`,
		func(r *http.Request) string { return r.Header.Get("X-Shop-Auth") })
	requireRedacted(t, token, terminal, files)
}

// A value of idemcheck's own environment that the configuration never
// names, printed by a target (which inherits the environment), reaches no
// report either; marked safe with IDEMCHECK_SAFE_ENV, it is kept.
func TestInheritedEnvValueIsRedacted(t *testing.T) {
	const token = "ci-value-q8Zr2LmXv5Tn"
	t.Setenv("IDEMCHECK_TEST_CI_DEPLOY", token)
	echo := func(*http.Request) string { return os.Getenv("IDEMCHECK_TEST_CI_DEPLOY") }
	terminal, files := runEchoing(t, "", echo)
	requireRedacted(t, token, terminal, files)

	t.Setenv("IDEMCHECK_SAFE_ENV", os.Getenv("IDEMCHECK_SAFE_ENV")+",IDEMCHECK_TEST_CI_*")
	_, files = runEchoing(t, "", echo)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), token, "marked safe: kept")
}

// runEchoing runs a target whose every reply is a 500 that quotes
// echo(request), with the operation's extra line opLine, and returns what
// the terminal got and every file written to --out.
func runEchoing(t *testing.T, opLine string, echo func(*http.Request) string) (string, []string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":"cannot authenticate with `+echo(r)+`"}`)
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
        %s
        body: '{"memo":"{{marker}}"}'
faults: []
retry: {max_attempts: 2}
`, srv.URL, opLine)), 0o644))
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, stdout, stderr := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "1",
		"--format", "text,json,junit,md,html", "--out", out)
	assert.Equal(t, exitHarness, code, "a target that never succeeds cannot be tested\n%s", stderr)
	all, err := filepath.Glob(filepath.Join(out, "*"))
	require.NoError(t, err)
	var files []string // the reports and the result, not the manifest of their digests
	for _, f := range all {
		if filepath.Base(f) != reports.ManifestFile {
			files = append(files, f)
		}
	}
	require.NotEmpty(t, files)
	return stdout + stderr, files
}

// requireRedacted checks that secret is nowhere on the terminal or in the
// files, and that each file had it, redacted.
func requireRedacted(t *testing.T, secret, terminal string, files []string) {
	t.Helper()
	assert.NotContains(t, terminal, secret)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContains(t, string(data), secret, f)
		// Markdown escapes the brackets.
		redacted := strings.Contains(string(data), "[redacted]") || strings.Contains(string(data), `\[redacted\]`)
		assert.True(t, redacted, "%s: the echoed value was there, and redacted", f)
	}
}
