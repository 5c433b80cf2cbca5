package examples_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/scenarios"
)

// A new key sent with the payload of a step that reused a key with a
// changed payload: the mismatch shop silently replays the reused key (its
// one flaw, key.mismatch), and the new key rightly charges. That is no
// de-duplication by payload.
func TestMismatchShopTwinOfAChangedPayloadIsNoPayloadDedup(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	tr := scenarios.Trial{Steps: []scenarios.Step{
		{Op: "create-order", Key: scenarios.Fresh},
		{Op: "create-order", Key: scenarios.Changed, Of: 0},
		{Op: "create-order", Key: scenarios.Twin, Of: 1},
	}}
	require.NoError(t, tr.Validate())
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.ShopSpec(exe, "mismatch")}, harness.WithSeed(7), harness.WithTrials(0),
		harness.WithChecks(harness.CheckKeyDistinct, harness.CheckKeyMismatch), harness.WithReplay(scenarios.Saved{Trial: tr}))
	require.NoError(t, err)
	got := res.Targets[0]
	require.Empty(t, got.Error)
	for _, f := range got.Findings {
		t.Logf("%s %s: %s", f.Severity, f.Check, f.Message)
		assert.NotEqual(t, harness.CheckKeyDistinct, f.Check, "a false payload de-duplication")
	}
	sc := got.Scenario
	require.NotNil(t, sc)
	require.Len(t, sc.Replayed, 1)
	assert.NotContains(t, sc.Replayed[0].Checks, harness.CheckKeyDistinct, "the trial shows no payload de-duplication")
}
