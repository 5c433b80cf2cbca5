package main

import (
	"path/filepath"
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
