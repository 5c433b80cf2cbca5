package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

// TestBaselineSurvivesConfigurationEdits: a pull request that edits the
// configuration (a comment, another input) still gates on what is new
// since the baseline: findings are matched by target, check, operation
// and fault. Only a renamed operation or target loses its history, and
// the reports say which.
func TestBaselineSurvivesConfigurationEdits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg, profile := switchConfig(t)
	require.NoError(t, os.WriteFile(profile, []byte("mismatch"), 0o644)) // key.mismatch, minor: score 2
	run := func(dir string, args ...string) (int, reports.Report, string) {
		code, out, errs := runCLI(t, ctx, append([]string{"run", "-c", cfg, "--trials", "0", "--seed", "8", "--format", "json,text", "--out", dir, "--quiet",
			"--only", "key.mismatch,key.required,effect.field"}, args...)...)
		var rep reports.Report
		if code != exitUsage {
			require.NoError(t, json.Unmarshal([]byte(out), &rep), errs)
		}
		return code, rep, errs
	}
	old := t.TempDir()
	code, _, errs := run(old)
	require.Equal(t, exitBelow, code, errs)
	base := filepath.Join(old, "result.json")
	orig, err := os.ReadFile(cfg)
	require.NoError(t, err)
	edit := func(from, to string) {
		t.Helper()
		text := strings.Replace(string(orig), from, to, 1)
		require.NotEqual(t, string(orig), text)
		require.NoError(t, os.WriteFile(cfg, []byte(text), 0o644))
	}

	// A comment: the same finding, still present.
	edit("version: 1\n", "version: 1\n# reviewed\n")
	code, rep, errs := run(t.TempDir(), "--baseline", base)
	require.Equal(t, exitOK, code, "an edited configuration keeps its baseline: %s", errs)
	d := rep.Targets[0].Baseline
	require.NotNil(t, d)
	require.Len(t, d.Still, 1)
	assert.Equal(t, "key.mismatch", d.Still[0].Check)
	assert.Empty(t, d.New)
	assert.Empty(t, d.NewOperations)

	// A renamed operation: its finding has no history, so it is new, and
	// the old one is not counted as fixed.
	edit("name: create-order", "name: place-order")
	dir := t.TempDir()
	code, rep, errs = run(dir, "--baseline", base)
	require.Equal(t, exitBelow, code, errs)
	d = rep.Targets[0].Baseline
	require.NotNil(t, d)
	assert.Equal(t, []string{"place-order"}, d.NewOperations)
	assert.Equal(t, []string{"create-order"}, d.GoneOperations)
	require.Len(t, d.New, 1)
	assert.Equal(t, "place-order", d.New[0].Operation)
	assert.Empty(t, d.Fixed, "nothing judged create-order: its finding is not fixed")
	txt := strings.Join(strings.Fields(readFile(t, filepath.Join(dir, "report.txt"))), " ")
	assert.Contains(t, txt, "operation place-order not in the baseline (renamed or added: its findings are new, without history)")
	assert.Contains(t, txt, "operation create-order of the baseline not in this run")

	// A renamed target: judged without a baseline, and the gate says so.
	edit("name: shop", "name: store")
	code, rep, errs = run(t.TempDir(), "--baseline", base)
	require.Equal(t, exitBelow, code, errs)
	assert.Nil(t, rep.Targets[0].Baseline)
	require.NotNil(t, rep.Gate)
	assert.Equal(t, []string{"store"}, rep.Gate.NewTargets)
	assert.Equal(t, []string{"shop"}, rep.Gate.GoneTargets)
	assert.Contains(t, rep.Gate.Reason, "target store not in the baseline (renamed or added: judged without one)")
	assert.Contains(t, rep.Gate.Reason, "target shop of the baseline not in this run")
	requireNoTargetsLeft(t)
}
