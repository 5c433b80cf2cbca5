package harness_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// TestMergeKeepsWhatTrialsShowed: re-scoring a saved result (Merge of one)
// keeps its failing trial, its counterexample and the trial's finding, so
// that idemcheck report judges and tells what run did.
func TestMergeKeepsWhatTrialsShowed(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "reports", "testdata", "result.json")
	if _, err := os.Stat(path); err != nil {
		t.Skip("the reports fixture is not there:", err)
	}
	res, err := record.ReadResultFile(path)
	require.NoError(t, err)
	tr := &res.Targets[1] // mismatch: no critical finding of its own
	trial := &scenarios.Trial{Steps: []scenarios.Step{{Op: "create-order", Key: scenarios.Fresh, Restart: true}}}
	tr.Scenario = &record.ScenarioResult{Trials: 9, Counterexample: trial,
		Findings: []record.Finding{{Check: harness.CheckRetrySequential, Severity: record.Critical, Operation: "create-order", Message: "create-order: twice"}}}
	merged, err := harness.Merge(res)
	require.NoError(t, err)
	got := merged.Targets[1]
	require.NotNil(t, got.Scenario)
	assert.Equal(t, trial, got.Scenario.Counterexample)
	assert.Equal(t, 0, got.Score.Level, "the trial's critical finding counts")
	var trialFinding bool
	for _, f := range got.Findings {
		trialFinding = trialFinding || f.Trial && f.Check == harness.CheckRetrySequential
	}
	assert.True(t, trialFinding)
}
