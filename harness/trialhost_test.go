package harness_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// startsFor runs the probes and n trials of a correct in-memory shop and
// returns how many shops the trials started (the probes' own aside).
func startsFor(t *testing.T, n int, opts ...harness.Option) int {
	t.Helper()
	ctx := context.Background()
	spec, probesOnly := shopSpec("shop", shopConfig{})
	_, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(9))
	require.NoError(t, err)
	spec, run := shopSpec("shop", shopConfig{})
	res, err := harness.Verify(ctx, []harness.Spec{spec}, append([]harness.Option{harness.WithSeed(9), harness.WithTrials(n)}, opts...)...)
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	require.NotNil(t, tr.Scenario)
	require.Nil(t, tr.Scenario.Counterexample, "the correct shop holds")
	require.Equal(t, n, tr.Scenario.Trials)
	probed, _ := probesOnly.started()
	all, fakes := run.started()
	assert.Len(t, fakes, len(all), "each target has its fakes")
	return len(all) - len(probed)
}

// Generated trials share one running target and its fakes; with
// WithFreshTrials every trial gets its own, as before.
func TestTrialsShareOneTarget(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 1, startsFor(t, 80), "80 trials run on one started target")
	assert.Equal(t, 30, startsFor(t, 30, harness.WithFreshTrials()), "a fresh target per trial")
}

// Trials run several at a time: on the trials' target (the one started
// after the probes' own), the first call waits until a second is in
// flight beside it. Run one at a time, they would never meet, and the
// test fails once that call's deadline has passed.
//
// A target whose every start is its own instance (Spec.Isolated) gets one
// per worker: their calls meet across instances.
func TestTrialsRunSideBySide(t *testing.T) {
	t.Parallel()
	for _, isolated := range []bool{false, true} {
		t.Run(map[bool]string{false: "shared", true: "isolated"}[isolated], func(t *testing.T) {
			trialsRunSideBySide(t, isolated)
		})
	}
}

func trialsRunSideBySide(t *testing.T, isolated bool) {
	ctx := context.Background()
	// A shop that cannot be crashed: no trial runs alone, so none waits
	// for the others to finish while one of them waits for a second call.
	probeSpec, probeRun := shopSpec("shop", shopConfig{plainOnly: true})
	_, err := harness.Verify(ctx, []harness.Spec{probeSpec}, harness.WithSeed(4), harness.WithChecks(harness.CheckRetrySequential))
	require.NoError(t, err)
	probed, _ := probeRun.started()

	var starts, inFlight atomic.Int32
	var trials, waited atomic.Bool
	met := make(chan struct{})
	var once sync.Once
	cfg := shopConfig{
		plainOnly: true,
		onStart: func(context.Context) error {
			if int(starts.Add(1)) > len(probed) {
				trials.Store(true)
			}
			return nil
		},
		onCall: func(ctx context.Context, c harness.Call) {
			if !trials.Load() {
				return
			}
			if inFlight.Add(1) >= 2 {
				once.Do(func() { close(met) })
				return
			}
			if !waited.CompareAndSwap(false, true) {
				return // only the first lone call waits
			}
			select {
			case <-met:
			case <-time.After(10 * time.Second):
			case <-ctx.Done():
			}
		},
		onReturn: func() {
			if trials.Load() {
				inFlight.Add(-1)
			}
		},
	}
	spec, _ := shopSpec("shop", cfg)
	spec.Isolated = isolated
	spec.Options = []harness.Option{harness.WithTrialWorkers(2)}
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(4), harness.WithTrials(20), harness.WithChecks(harness.CheckRetrySequential))
	require.NoError(t, err)
	require.True(t, trials.Load(), "the trials had a target of their own")
	select {
	case <-met:
	default:
		t.Fatal("no two trials' calls were ever in flight at once")
	}
	assert.Empty(t, res.Targets[0].Error)
}

// A trial that crashes or restarts the target runs alone: no other
// trial's call is in flight when the target is killed (but the crashing
// call itself) or restarted. Only the trials' calls are counted: the
// probes run first, on an instance of their own, and the trials on the
// one started after it. Until two trial calls have been in flight at
// once, a trial call that finds itself alone waits (bounded) for another
// to arrive, so that the trials are seen side by side however the machine
// schedules them: the in-memory target answers at once.
func TestTrialsThatCrashRunAlone(t *testing.T) {
	t.Parallel()
	var starts, inFlight, worst atomic.Int32
	var trials atomic.Bool
	var kills, restarts atomic.Int32
	var mu sync.Mutex
	var bad []string
	note := func(what string, limit int32) {
		if n := inFlight.Load(); n > limit {
			mu.Lock()
			bad = append(bad, what)
			mu.Unlock()
		}
	}
	met := make(chan struct{})
	var meet sync.Once
	cfg := shopConfig{
		onStart: func(context.Context) error {
			if starts.Add(1) > 1 {
				trials.Store(true)
			}
			return nil
		},
		onCall: func(ctx context.Context, _ harness.Call) {
			if !trials.Load() {
				return
			}
			n := inFlight.Add(1)
			for w := worst.Load(); n > w && !worst.CompareAndSwap(w, n); w = worst.Load() {
			}
			if n > 1 {
				meet.Do(func() { close(met) })
				return
			}
			select {
			case <-met:
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
			}
		},
		onReturn: func() {
			if trials.Load() {
				inFlight.Add(-1)
			}
		},
		onKill: func() {
			if trials.Load() {
				kills.Add(1)
				note("kill", 1)
			}
		},
		onRestart: func() {
			if trials.Load() {
				restarts.Add(1)
				note("restart", 0)
			}
		},
	}
	spec, _ := shopSpec("shop", cfg)
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(12), harness.WithTrials(200), harness.WithTrialWorkers(4))
	require.NoError(t, err)
	require.Empty(t, res.Targets[0].Error)
	require.Nil(t, res.Targets[0].Scenario.Counterexample)
	require.True(t, trials.Load(), "the trials had a target of their own")
	assert.Positive(t, kills.Load(), "trials crashed the shop")
	assert.Positive(t, restarts.Load(), "trials restarted the shop")
	assert.Greater(t, worst.Load(), int32(1), "other trials ran side by side")
	assert.Empty(t, bad, "a kill or restart met other trials' calls in flight")
}
