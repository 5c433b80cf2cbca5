package harness_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// calls records, per instance of a target (by the order they started),
// when each call was made.
type calls struct {
	mu sync.Mutex
	at [][]time.Time
}

func (c *calls) instance() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = append(c.at, nil)
	return len(c.at) - 1
}

func (c *calls) note(i int) {
	c.mu.Lock()
	c.at[i] = append(c.at[i], time.Now())
	c.mu.Unlock()
}

// timedShop is an lruShop that notes its calls.
type timedShop struct {
	*lruShop
	calls *calls
	i     int
}

func (s *timedShop) Call(ctx context.Context, c harness.Call) harness.Reply {
	s.calls.note(s.i)
	return s.lruShop.Call(ctx, c)
}

// A target whose every start is an instance of its own runs its trials
// while the probes' late retries wait: the trials' instance takes calls
// before the probes' last one. Nothing is found on the correct cache.
func TestTrialsRunWhileTheLateRetriesWait(t *testing.T) {
	t.Parallel()
	var c calls
	spec := harness.Spec{Name: "lru", Kind: "func", Isolated: true, Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
		return &timedShop{lruShop: &lruShop{ledger: env.Ledger, cache: map[string]harness.Reply{}, inputs: map[string]string{}}, calls: &c, i: c.instance()}, nil
	}}
	tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(6), harness.WithTrials(40),
		harness.WithLateRetry(10, 400*time.Millisecond))
	assert.Empty(t, tr.Findings)
	require.NotNil(t, tr.Scenario)
	assert.Equal(t, 40, tr.Scenario.Trials)
	assert.Nil(t, tr.Scenario.Counterexample)

	c.mu.Lock()
	defer c.mu.Unlock()
	require.Len(t, c.at, 1+harness.DefaultTrialWorkers, "one instance for the probes, one per trial worker")
	probes := c.at[0]
	require.NotEmpty(t, probes)
	for w, trials := range c.at[1:] {
		require.NotEmpty(t, trials, "worker %d's instance took calls", w)
		assert.True(t, trials[0].Before(probes[len(probes)-1]), "worker %d's trials started before the probes' last late retry", w)
	}
}

// A trial whose only new finding is of a check the probes' tails serve
// (retry.late) is judged once the probes are done: here the probe, which
// does not wait, cannot see keys that expire; trials that may wait find
// them, and their counterexample stands.
func TestEarlyTrialFindingOfAPendingCheckStands(t *testing.T) {
	t.Parallel()
	spec := ttlSpec(150 * time.Millisecond)
	spec.Isolated = true
	tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(4),
		harness.WithLateRetry(20, -1), harness.WithTrials(100), harness.WithTrialWaits(400*time.Millisecond),
		harness.WithBudget(8*time.Second))
	sc := tr.Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample, "trials that may wait find the expiry")
	assert.Contains(t, sc.Counterexample.String(), "wait ")
	for _, f := range sc.Findings {
		assert.Equal(t, harness.CheckRetryLate, f.Check)
	}
	for _, f := range tr.Findings {
		assert.True(t, f.Trial, "the probe, which did not wait, found nothing: %s", f.Message)
	}
}

// A trial that only restates what the probes' tails found is no
// counterexample, and stops no other trial: a cache of 2 keys is found by
// the late probe; a trial that sees it too (one of this seed's first 60) is
// judged against it once the probes are done, and adds nothing of the same
// check, operation and fault.
func TestEarlyTrialRestatingATailIsNoCounterexample(t *testing.T) {
	t.Parallel()
	for _, isolated := range []bool{false, true} {
		spec := lruSpec(2)
		spec.Isolated = isolated
		tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(10), harness.WithTrials(60),
			harness.WithLateRetry(10, -1), harness.WithChecks(harness.CheckRetryLate))
		require.NotEmpty(t, tr.Findings, "the late probe finds the cache")
		for _, f := range tr.Findings {
			assert.False(t, f.Trial, "isolated %v: a trial restated the probe: %s", isolated, f.Message)
		}
		require.NotNil(t, tr.Scenario)
		assert.Nil(t, tr.Scenario.Counterexample, "isolated %v: a trial that restates the probe is no counterexample", isolated)
		assert.Equal(t, 60, tr.Scenario.Trials, "isolated %v: no trial stopped the others", isolated)
	}
}
