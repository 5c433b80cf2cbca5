package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
)

// TestCoverageSaysWhichPointsEachFaultReached: a point whose fault acted
// is reached; one whose fault never acted, or was never armed, is not;
// an operation with one downstream call has no coverage.
func TestCoverageSaysWhichPointsEachFaultReached(t *testing.T) {
	pay, mail := record.EffectPoint{Index: 1, Fake: "payments", N: 1}, record.EffectPoint{Index: 2, Fake: "email", N: 1}
	at := func(f string, p record.EffectPoint, notFired bool) record.Intent {
		return record.Intent{Operation: "create-order", Attempts: []record.Attempt{{Fault: f, Point: &p, NotFired: notFired}, {}}}
	}
	r := &record.Record{
		EffectPoints: []record.OperationPoints{{Operation: "create-order", Points: []record.EffectPoint{pay, mail}}},
		Intents: []record.Intent{
			at("crash-after-effect", pay, false), at("crash-after-effect", mail, false),
			at("downstream-503", pay, false), at("downstream-503", mail, true),
			at("downstream-reset-after", pay, false),
			{Operation: "refund", Attempts: []record.Attempt{{Fault: "crash-after-effect"}}},
		},
	}
	cov := r.Coverage()
	require.Len(t, cov, 3)
	assert.Equal(t, "create-order: crash-after-effect: payments ✓ email ✓", cov[0].String())
	assert.Empty(t, cov[0].Unreached())
	assert.Equal(t, "create-order: downstream-503: payments ✓ email ✗", cov[1].String(), "armed, never acted")
	assert.Equal(t, []record.EffectPoint{mail}, cov[1].Unreached())
	assert.Equal(t, "create-order: downstream-reset-after: payments ✓ email ✗", cov[2].String(), "never armed")
	assert.Nil(t, (&record.Record{Intents: r.Intents}).Coverage(), "no operation with several points")
	assert.Equal(t, "payments #2", record.EffectPoint{Index: 3, Fake: "payments", N: 2}.String())
}
