package harness_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// TestTrialsFindAFlawThatNeedsTwoKeysInFlight: a shop that keeps the key
// of the charge in progress in one shop-wide field is correct one call at
// a time, and forgets a key as soon as two are in flight together. The
// probes (one intent at a time) miss it; generated trials that start
// steps together find it, and shrink it to steps that overlap. With the
// same shop behind an adapter that cannot take calls at once, no trial
// overlaps and nothing is found: overlap is what finds it.
func TestTrialsFindAFlawThatNeedsTwoKeysInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := shopConfig{sharedSlot: true, work: 5 * time.Millisecond}
	spec, _ := shopSpec("shared-slot", cfg)
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7), harness.WithTrials(1000))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	for _, f := range tr.Findings {
		assert.True(t, f.Trial, "only a trial can show it, yet a probe reported: %s %s", f.Check, f.Message)
	}
	sc := tr.Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample, "trials that overlap find the shared slot in %d trials", sc.Trials)
	overlap := false
	for _, s := range sc.Counterexample.Steps {
		overlap = overlap || s.With
	}
	assert.True(t, overlap, "the minimal trial keeps two steps in flight together:\n%s", sc.Counterexample)
	assert.Contains(t, sc.Counterexample.String(), "at the same time as step")
	assert.Less(t, tr.Score.Level, 3)
	t.Logf("found after %d trials; minimal trial:\n%s", sc.Trials, sc.Counterexample)

	cfg.plainOnly = true
	plain, _ := shopSpec("shared-slot", cfg)
	res, err = harness.Verify(ctx, []harness.Spec{plain}, harness.WithSeed(7), harness.WithTrials(200))
	require.NoError(t, err)
	require.Empty(t, res.Targets[0].Error)
	require.NotNil(t, res.Targets[0].Scenario)
	assert.Nil(t, res.Targets[0].Scenario.Counterexample, "one intent at a time never shows the shared slot")
	assert.Empty(t, res.Targets[0].Findings)
}

// TestOverlappingTrialsRaiseNoFalseAlarm: the correct shop, with charges
// that take long enough for steps released together to overlap, passes
// every generated trial, overlaps, retries of one key beside a changed
// payload of it, and bursts among them included.
func TestOverlappingTrialsRaiseNoFalseAlarm(t *testing.T) {
	t.Parallel()
	spec, _ := shopSpec("correct", shopConfig{work: 2 * time.Millisecond})
	tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(11), harness.WithTrials(400))
	require.NotNil(t, tr.Scenario)
	assert.Nil(t, tr.Scenario.Counterexample, "a correct shop fails no trial:\n%s", tr.Scenario.Steps)
	assert.Empty(t, tr.Findings)
	assert.Equal(t, 3, tr.Score.Level)
}

// TestATrialSeenOnceIsFlakyAndCountsForNothing: a shop that forgets one
// key once, on the trials' target only, fails one generated trial; none of
// the counterexample's replays fails, so it is reported as flaky, with its
// rate, and neither fails its check nor lowers the score: the verdict
// does not depend on the one time it happened. Nor does it end the
// trials: they go on past it, every one the run asked for.
func TestATrialSeenOnceIsFlakyAndCountsForNothing(t *testing.T) {
	t.Parallel()
	var starts atomic.Int32
	var forgot atomic.Bool
	cfg := shopConfig{
		onStart: func(context.Context) error { starts.Add(1); return nil },
		forget: func() bool {
			return starts.Load() == 2 && forgot.CompareAndSwap(false, true)
		},
	}
	spec, _ := shopSpec("once", cfg)
	tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(5), harness.WithTrials(300))
	require.True(t, forgot.Load(), "the trials met the forgetful moment")
	sc := tr.Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample, "the trial that met it failed")
	assert.True(t, sc.Flaky)
	assert.Equal(t, 300, sc.Trials, "the trials went on past it to the last")
	assert.Equal(t, 3, sc.Replays)
	assert.Zero(t, sc.Reproduced)
	assert.Contains(t, sc.Rate(), "none of 3 replays failed the same way")
	require.NotEmpty(t, tr.Findings)
	for _, f := range tr.Findings {
		assert.True(t, f.Trial && f.Flaky, "only the flaky trial's findings: %s", f.Message)
	}
	for _, c := range tr.Checks {
		assert.NotEqual(t, harness.StatusFail, c.Status, "%s: a failure seen once does not fail it", c.ID)
	}
	assert.Equal(t, 3, tr.Score.Level)
}

// TestAReproducibleTrialShowsItsRate: a counterexample that fails every
// time it is replayed says so, and counts.
func TestAReproducibleTrialShowsItsRate(t *testing.T) {
	t.Parallel()
	res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(2)}, harness.WithSeed(3), harness.WithTrials(300))
	require.NoError(t, err)
	sc := res.Targets[0].Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample)
	assert.False(t, sc.Flaky)
	assert.Equal(t, 3, sc.Replays)
	assert.Equal(t, 3, sc.Reproduced)
	assert.Equal(t, "failed again in 3 of 3 replays", sc.Rate())
	assert.Less(t, res.Targets[0].Score.Level, 3)
}
