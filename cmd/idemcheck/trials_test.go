package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// TestReplayHintRuns: a trial finding's replay hint is a command that
// runs: run's names the replay command and the saved file; the demo's,
// which takes no file, is the same demo with the same --out, which runs
// the trials saved there first. Without --out it is the run again.
func TestReplayHintRuns(t *testing.T) {
	t.Parallel()
	result := func() *record.Result {
		f := record.Finding{Check: "key.mismatch", Trial: true}
		return &record.Result{Seed: 96, Targets: []record.TargetResult{{
			Name:     "pgpay-correct",
			Findings: []record.Finding{f},
			Scenario: &record.ScenarioResult{Counterexample: &scenarios.Trial{Steps: []scenarios.Step{{Op: "pay", Key: scenarios.Fresh}}}, Findings: []record.Finding{f}},
		}}}
	}
	rerun := "idemcheck demo --seed 96 --trials 300"
	dir := t.TempDir()

	res := result()
	require.NoError(t, saveTrials(res, dir, func(string) string { return rerun + " --out " + dir }, rerun))
	assert.Equal(t, rerun+" --out "+dir, res.Targets[0].Findings[0].Replay, "the demo's hint")
	assert.FileExists(t, filepath.Join(dir, failingTrialsFile))

	res = result()
	require.NoError(t, saveTrials(res, dir, func(p string) string { return "idemcheck replay -c cfg.yaml " + p }, rerun))
	assert.Equal(t, "idemcheck replay -c cfg.yaml "+filepath.Join(dir, failingTrialsFile), res.Targets[0].Findings[0].Replay, "run's hint")

	res = result()
	require.NoError(t, saveTrials(res, "", func(string) string { panic("nothing is saved without --out") }, rerun))
	assert.Equal(t, rerun, res.Targets[0].Findings[0].Replay, "without --out, the run again")
}

// TestReplayHintQuotesPaths: a path with a space or a quote in a replay
// hint is quoted, so that a shell reads it as one word.
func TestReplayHintQuotesPaths(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no POSIX shell")
	}
	dir := filepath.Join(t.TempDir(), "it's a dir")
	require.NoError(t, os.Mkdir(dir, 0o755))
	cfg := filepath.Join(dir, "idemcheck.yaml")
	words := func(cmd string) []string {
		t.Helper()
		// The hint is given to the shell as a command line; printf
		// stands in for idemcheck, one word a line.
		out, err := exec.Command("sh", "-c", "printf '%s\\n' "+strings.TrimPrefix(cmd, "idemcheck ")).Output()
		require.NoError(t, err, cmd)
		return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	}

	rerun := "idemcheck demo --seed 96 --trials 300"
	res := &record.Result{Seed: 96, Targets: []record.TargetResult{{
		Name:     "pgpay-correct",
		Findings: []record.Finding{{Check: "key.mismatch", Trial: true}},
		Scenario: &record.ScenarioResult{Counterexample: &scenarios.Trial{Steps: []scenarios.Step{{Op: "pay", Key: scenarios.Fresh}}}},
	}}}
	require.NoError(t, saveTrials(res, dir, func(string) string { return demoReplay(rerun, dir) }, rerun))
	assert.Equal(t, []string{"demo", "--seed", "96", "--trials", "300", "--out", dir}, words(res.Targets[0].Findings[0].Replay))

	res.Targets[0].Findings[0].Replay = ""
	require.NoError(t, saveTrials(res, dir, func(saved string) string { return runReplay(cfg, saved) }, rerun))
	assert.Equal(t, []string{"replay", "-c", cfg, filepath.Join(dir, failingTrialsFile)}, words(res.Targets[0].Findings[0].Replay))
}
