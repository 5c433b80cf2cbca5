package examples_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// TestKeysScopedToTheCaller: given two callers' credentials, key.scope
// sends one key from both. The correct shop, which scopes keys by
// Authorization, runs the second caller's request as its own (3, no
// finding); caller-unscoped, which keys by the key alone, is caught.
// (The shop fingerprints the whole body, so the second caller's request,
// with its own marker, is refused as a reuse rather than replayed.)
func TestKeysScopedToTheCaller(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	run := func(spec harness.Spec) harness.TargetResult {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7))
		require.NoError(t, err)
		tr := res.Targets[0]
		require.Empty(t, tr.Error)
		for _, f := range tr.Findings {
			t.Logf("%s %s %s: %s", f.Severity, f.Check, f.Fault, f.Message)
		}
		return tr
	}
	tr := run(examples.CallersShopSpec(exe, "correct"))
	assert.Equal(t, 3, tr.Score.Level, tr.Score.Reason)
	assert.Empty(t, tr.Findings)
	crossed := 0
	for _, in := range tr.Record.Intents {
		if in.Role == record.RoleOtherCaller {
			crossed++
			assert.Len(t, tr.Record.EffectsOf(&in), 1, "the second caller's request ran as its own")
		}
	}
	assert.Equal(t, 2, crossed, "one key from two callers on each mutating operation")

	tr = run(examples.ShopSpec(exe, "caller-unscoped"))
	assert.Equal(t, []string{harness.CheckKeyScope}, failing(tr))
	assert.Equal(t, 1, tr.Score.Level, "a caller misled: %s", tr.Score.Reason)
}
