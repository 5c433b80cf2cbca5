package examples_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// TestObservedDemoTargets: the reference targets whose effects stay in
// their own data score in the demo what they are built for, the ledger
// attributed by delta (its concurrent distinct intents left out, with
// why), the others by marker.
func TestObservedDemoTargets(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("ten targets, each a real process on a real database")
	}
	exe := refexe.Path(t)
	demo := examples.ObservedDemo(exe, examples.SQLiteOrders)
	specs := make([]harness.Spec, len(demo))
	for i, d := range demo {
		specs[i] = d.Spec
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res, err := harness.Verify(ctx, specs, harness.WithSeed(1))
	require.NoError(t, err)
	require.Len(t, res.Targets, len(demo))
	for i, d := range demo {
		tr := res.Targets[i]
		require.Equal(t, d.Spec.Name, tr.Name)
		var failing []string
		for _, f := range tr.Findings {
			failing = append(failing, f.Check)
		}
		assert.Equal(t, d.Built, tr.Score.Level, "%s is built for %d; error %q; failing %v", tr.Name, d.Built, tr.Error, failing)
		if tr.Record == nil {
			continue
		}
		if d.Spec.Name[:7] == "ledger-" {
			assert.Equal(t, record.AttributionDelta, tr.Record.Attribution, tr.Name)
			assert.Contains(t, tr.Record.NotRun["concurrent distinct intents"], "attributed by delta (observer ledger-db)")
		} else {
			assert.Empty(t, tr.Record.Attribution, tr.Name)
		}
	}
}
