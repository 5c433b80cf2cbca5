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
// A third makes no downstream call on a first attempt (it answers 503,
// and charges on the retry), so no downstream fault armed for a first
// attempt ever acts: what those faults were to show is not examined, the
// checks that judge them say so, none passes, and the score cannot
// claim the levels they are needed for.
func TestTargetCannotDisarmItsFaults(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	target := func(name, mode string) string {
		disarm, greylist := "", ""
		switch mode {
		case "disarm":
			disarm = "1"
		case "greylist":
			greylist = "1"
		}
		return fmt.Sprintf(`
  - name: %[1]s
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%[2]q, "127.0.0.1:{{port}}"]
      env: {%[3]s: charger, DISARM: %[4]q, GREYLIST: %[5]q, PAYMENTS_URL: "{{fakes.payments.url}}"}
      ready: {path: /healthz}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"memo":"{{marker}}"}'
`, name, exe, hostileEnv, disarm, greylist)
	}
	cfg := "version: 1\nfakes:\n  payments: {}\ntargets:" + target("honest", "") + target("disarmer", "disarm") + target("greylister", "greylist")
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	out := t.TempDir()
	code, _, errs := runCLI(t, t.Context(), "run", "-c", path, "--trials", "0", "--seed", "7", "--quiet", "--format", "json", "--out", out)
	require.Equal(t, exitBelow, code, errs)
	res, err := record.ReadResultFile(filepath.Join(out, record.ResultFile))
	require.NoError(t, err)

	critical := map[string][]string{}
	byName := map[string]record.TargetResult{}
	for _, tr := range res.Targets {
		require.Empty(t, tr.Error, tr.Name)
		byName[tr.Name] = tr
		for _, f := range tr.Findings {
			if f.Severity == record.Critical && f.Fault != "" {
				critical[tr.Name] = append(critical[tr.Name], f.Check+" under "+f.Fault)
			}
		}
	}
	require.NotEmpty(t, critical["honest"], "the honest server's downstream faults were found")
	assert.ElementsMatch(t, critical["honest"], critical["disarmer"], "disarming the fakes hid nothing")

	for _, name := range []string{"honest", "disarmer"} {
		require.NotNil(t, byName[name].Record, name)
		assert.Empty(t, byName[name].Record.Unfired(), "%s: every fault armed for it acted", name)
		for _, c := range byName[name].Checks {
			assert.NotContains(t, c.Note, "not examined", "%s: %s", name, c.ID)
		}
	}

	grey := byName["greylister"]
	require.NotNil(t, grey.Record)
	unfired := map[string]bool{}
	for _, u := range grey.Record.Unfired() {
		unfired[u.Fault] = true
	}
	for _, f := range []string{"downstream-503", "downstream-503-after", "downstream-reset-after"} {
		assert.True(t, unfired[f], "%s never acted on the greylister, and the record says so", f)
	}
	status := map[string]record.CheckResult{}
	for _, c := range grey.Checks {
		status[c.ID] = c
	}
	for _, id := range []string{"retry.after-fault", "downstream.propagation"} {
		c := status[id]
		assert.Equal(t, record.StatusSkip, c.Status, "%s on the greylister: %s", id, c.Note)
		assert.Contains(t, c.Note, "not examined", id)
		assert.Contains(t, c.Note, "never acted", id)
	}
	listed := map[string]bool{}
	for _, u := range grey.NotExamined {
		if u.Cause == record.CauseUnfired {
			listed[u.Check+" "+u.Fault] = true
		}
	}
	assert.True(t, listed["retry.after-fault downstream-503"], "listed as not examined: %v", grey.NotExamined)
	assert.True(t, listed["downstream.propagation downstream-503-after"], "listed as not examined: %v", grey.NotExamined)
	for _, f := range grey.Findings {
		if f.Fault != "" {
			assert.False(t, unfired[f.Fault] && (f.Check == "retry.after-fault" || f.Check == "downstream.propagation"),
				"a finding blames %s, which never acted: %s", f.Fault, f.Message)
		}
	}
	assert.Less(t, grey.Score.Level, 2, "a score that needs what was not examined is not claimed: %s", grey.Score.Reason)
}
