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

// A kind's own faults (WithKindFaults: a consumer's broker faults) replace
// the run's defaults for its targets, with its dependencies' faults added;
// a run told its faults, by WithFaults, tries exactly those on every
// target, and WithDefaultFaults sets the defaults a kind's own replace.
func TestKindFaultsReplaceOnlyTheDefaults(t *testing.T) {
	fault := func(name string) faults.Fault {
		f, err := faults.Builtin().New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	db := []harness.Dependency{{Name: "db", Protocol: "postgres"}}
	kind := harness.Spec{Name: "consumer", Dependencies: db, Options: []harness.Option{harness.WithKindFaults(fault(faults.NameCrashAfterEffect))}}

	l := harness.TrialLimits(kind)
	assert.Contains(t, l.Faults, faults.NameCrashAfterEffect, "the kind's own")
	assert.Contains(t, l.Faults, faults.NameDepStall, "and its database's")
	assert.NotContains(t, l.Faults, faults.NameLostResponse, "not the run's defaults")

	l = harness.TrialLimits(kind, harness.WithDefaultFaults(fault(faults.NameReset)))
	assert.NotContains(t, l.Faults, faults.NameReset, "a file's defaults are defaults too")
	assert.Contains(t, l.Faults, faults.NameDepError)

	l = harness.TrialLimits(kind, harness.WithFaults(fault(faults.NameDepError)))
	assert.Equal(t, []string{faults.NameDepError}, l.Faults, "named faults are tried as named")
	l = harness.TrialLimits(kind, harness.WithFaults())
	assert.Empty(t, l.Faults, "none named, none tried")

	plain := harness.TrialLimits(harness.Spec{Name: "api", Dependencies: db}, harness.WithDefaultFaults(fault(faults.NameReset)))
	assert.Equal(t, []string{faults.NameReset}, plain.Faults[:1], "a kind without faults of its own takes the run's defaults")
	assert.Contains(t, plain.Faults, faults.NameDepStall)
}

// A kind's own bursts (WithKindBursts: a consumer's few copies, each
// waited for until acknowledged) replace only the defaults: a run that
// sets its burst size (a configuration's retry.burst or bursts.size)
// keeps it for every target.
func TestKindBurstsReplaceOnlyTheDefaults(t *testing.T) {
	kind := harness.Spec{Name: "consumer", Options: []harness.Option{harness.WithKindBursts(4, 2)}}
	assert.Equal(t, 4, harness.TrialLimits(kind).Burst, "the kind's own, where the run set none")
	assert.Equal(t, 12, harness.TrialLimits(kind, harness.WithBurst(12)).Burst, "the run's own")
	assert.Equal(t, harness.DefaultBurst, harness.TrialLimits(harness.Spec{Name: "api"}).Burst)
}
