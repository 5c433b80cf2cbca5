package harness_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// TrialLimits are the target's own: a saved trial of a target whose kind
// brings faults of its own (a consumer's broker faults, through its
// spec's options) and a burst of its own may use them, as a run of that
// target does; another target of the same run may not.
func TestTrialLimitsAreTheTargetsOwn(t *testing.T) {
	own, err := faults.Builtin().New(faults.NameCrashAfterEffect, nil)
	if err != nil {
		t.Fatal(err)
	}
	consumerLike := harness.Spec{Name: "consumer", Options: []harness.Option{harness.WithFaults(own), harness.WithBurst(4)}}
	l := harness.TrialLimits(consumerLike, harness.WithBurst(20))
	assert.Equal(t, []string{faults.NameCrashAfterEffect}, l.Faults)
	assert.Equal(t, 4, l.Burst)

	plain := harness.TrialLimits(harness.Spec{Name: "api"}, harness.WithBurst(20))
	assert.Equal(t, 20, plain.Burst)
	assert.Contains(t, plain.Faults, faults.NameLostResponse)
	assert.NotContains(t, plain.Faults, faults.NameDepStall, "no dependency declared")

	withDB := harness.TrialLimits(harness.Spec{Name: "db", Dependencies: []harness.Dependency{{Name: "db", Protocol: "postgres"}}})
	assert.Contains(t, withDB.Faults, faults.NameDepStall, "a declared database brings its faults")
}
