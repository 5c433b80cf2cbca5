package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetCannotDisarmItsFaults runs two servers that are equally not
// idempotent (a charge per call, no key passed on): one honest, one that
// sends DELETE /_idemcheck/rules to the payments fake before every charge,
// to keep the downstream faults armed for it from firing. The address it
// is given serves no control API, so the faults fire for both and both
// get the same critical findings: hiding from the faults changes nothing.
func TestTargetCannotDisarmItsFaults(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	target := func(name, disarm string) string {
		return fmt.Sprintf(`
  - name: %[1]s
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%[2]q, "127.0.0.1:{{port}}"]
      env: {%[3]s: charger, DISARM: %[4]q, PAYMENTS_URL: "{{fakes.payments.url}}"}
      ready: {path: /healthz}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"memo":"{{marker}}"}'
`, name, exe, hostileEnv, disarm)
	}
	cfg := "version: 1\nfakes:\n  payments: {}\ntargets:" + target("honest", "") + target("disarmer", "1")
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	out := t.TempDir()
	code, _, errs := runCLI(t, t.Context(), "run", "-c", path, "--trials", "0", "--seed", "7", "--quiet", "--format", "json", "--out", out)
	require.Equal(t, exitBelow, code, errs)
	res, err := record.ReadResultFile(filepath.Join(out, record.ResultFile))
	require.NoError(t, err)

	critical := map[string][]string{}
	for _, tr := range res.Targets {
		require.Empty(t, tr.Error, tr.Name)
		for _, f := range tr.Findings {
			if f.Severity == record.Critical && f.Fault != "" {
				critical[tr.Name] = append(critical[tr.Name], f.Check+" under "+f.Fault)
			}
		}
	}
	require.NotEmpty(t, critical["honest"], "the honest server's downstream faults were found")
	assert.ElementsMatch(t, critical["honest"], critical["disarmer"], "disarming the fakes hid nothing")
}
