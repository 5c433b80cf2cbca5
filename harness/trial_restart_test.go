package harness_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/scenarios"
)

// A trial restarts the shop before step 2, which retries step 1's key
// under a hang: a shop whose key store dies with its process charges
// again, and the finding blames the restart (crash.recovery, fault
// "restart", the incarnations named), not the hang of the step after
// it. A shop whose store survives passes the same trial.
func TestATrialsRestartIsBlamedNotTheNextFault(t *testing.T) {
	t.Parallel()
	tr := scenarios.Trial{Steps: []scenarios.Step{
		{Op: opCharge, Key: scenarios.Fresh},
		{Op: opCharge, Key: scenarios.Again, Of: 0, Fault: faults.NameHang, Restart: true},
	}}
	require.NoError(t, tr.Validate())
	run := func(cfg shopConfig) *harness.TargetResult {
		spec, _ := shopSpec("restarted", cfg)
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(3), harness.WithTrials(0),
			harness.WithReplay(scenarios.Saved{Trial: tr}))
		require.NoError(t, err)
		return &res.Targets[0]
	}

	lost := run(shopConfig{volatile: true, restartLoses: true, noDownstreamKey: true})
	sc := lost.Scenario
	require.NotNil(t, sc)
	require.Len(t, sc.Replayed, 1)
	assert.Equal(t, []string{harness.CheckCrashRecovery}, sc.Replayed[0].Checks)
	require.Len(t, sc.Findings, 1)
	f := sc.Findings[0]
	assert.Equal(t, "restart", f.Fault)
	assert.Contains(t, f.Message, "after a restart of the target between its attempts (then hang), retrying with the same key caused 2 effects")
	assert.Contains(t, f.Message, "the target restarted between the attempts (incarnations 1 and 2), and the key store did not survive the restart")

	kept := run(shopConfig{})
	require.NotNil(t, kept.Scenario)
	require.Len(t, kept.Scenario.Replayed, 1)
	assert.False(t, kept.Scenario.Replayed[0].StillFail, "checks: %v", kept.Scenario.Replayed[0].Checks)
}
