package harness_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// TestLateRetryProbeAndTrialsFindABoundedCache: a key cache of 8 entries
// is found by retry.late's probe, which says between which two counts of
// other keys it forgot, and by generated trials, shrunk to a history that
// says after how many other keys (their retry.late finding restates the
// probe's, so what they report is the changed payload the forgotten key
// then takes as new).
func TestLateRetryProbeAndTrialsFindABoundedCache(t *testing.T) {
	t.Parallel()
	tr := verifyTarget(t, context.Background(), lruSpec(8), harness.WithSeed(3), harness.WithTrials(300),
		harness.WithLateRetry(20, -1))
	var late []string
	for _, f := range tr.Findings {
		if f.Check == harness.CheckRetryLate {
			late = append(late, f.Message)
		}
	}
	require.NotEmpty(t, late)
	assert.Contains(t, late[0], "after 8 other keys")
	assert.Contains(t, late[0], "somewhere between 5 and 8 keys")

	sc := tr.Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample, "trials find the eviction")
	fill := 0
	for _, s := range sc.Counterexample.Steps {
		fill += s.Fill
	}
	assert.Equal(t, 8, fill, "shrunk to exactly the 8 other keys that evict the first:\n%s", sc.Counterexample)
	assert.Contains(t, sc.Counterexample.String(), "with 8 other fresh keys")
	t.Logf("minimal history:\n%s", sc.Counterexample)
}

// ttlShop is lruShop whose keys expire ttl after their first use.
type ttlShop struct {
	*lruShop
	ttl  time.Duration
	mu   sync.Mutex
	seen map[string]time.Time
}

func (s *ttlShop) Call(ctx context.Context, c harness.Call) harness.Reply {
	s.mu.Lock()
	if at, ok := s.seen[c.Key]; ok && time.Since(at) >= s.ttl {
		s.lruShop.mu.Lock()
		delete(s.lruShop.cache, c.Key)
		s.lruShop.mu.Unlock()
		delete(s.seen, c.Key)
	}
	if _, ok := s.seen[c.Key]; !ok && c.Key != "" {
		s.seen[c.Key] = time.Now()
	}
	s.mu.Unlock()
	return s.lruShop.Call(ctx, c)
}

func ttlSpec(ttl time.Duration) harness.Spec {
	return harness.Spec{Name: "ttl", Kind: "func", Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
		return &ttlShop{lruShop: &lruShop{ledger: env.Ledger, cache: map[string]harness.Reply{}, inputs: map[string]string{}},
			ttl: ttl, seen: map[string]time.Time{}}, nil
	}}
}

// TestLateRetryFindsAnExpiringCache: keys kept for 200ms are forgotten
// by age (after a single other key) by the probe, and trials allowed to
// wait find it with a wait step in the shrunk history.
func TestLateRetryFindsAnExpiringCache(t *testing.T) {
	t.Parallel()
	tr := verifyTarget(t, context.Background(), ttlSpec(200*time.Millisecond), harness.WithSeed(4),
		harness.WithLateRetry(20, 300*time.Millisecond), harness.WithTrials(100), harness.WithTrialWaits(400*time.Millisecond),
		harness.WithBudget(8*time.Second))
	var late []string
	for _, f := range tr.Findings {
		if f.Check == harness.CheckRetryLate {
			late = append(late, f.Message)
		}
	}
	require.NotEmpty(t, late)
	assert.Contains(t, late[0], "after 1 other key and at least 300ms")
	assert.Contains(t, late[0], "even after a single other key")
	sc := tr.Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample, "trials that may wait find the expiry")
	assert.Contains(t, sc.Counterexample.String(), "wait ", "the shrunk history says how long it waited:\n%s", sc.Counterexample)
}

// TestLateRetryQuietOnAnUnboundedCache: the correct cache has no
// retry.late finding, from the probe or from trials with fills and waits.
func TestLateRetryQuietOnAnUnboundedCache(t *testing.T) {
	t.Parallel()
	tr := verifyTarget(t, context.Background(), lruSpec(0), harness.WithSeed(5),
		harness.WithLateRetry(100, 50*time.Millisecond), harness.WithTrials(200), harness.WithTrialWaits(20*time.Millisecond))
	assert.Empty(t, tr.Findings)
	for _, c := range tr.Checks {
		if c.ID == harness.CheckRetryLate {
			assert.Equal(t, record.StatusPass, c.Status)
		}
	}
	require.NotNil(t, tr.Scenario)
	assert.Nil(t, tr.Scenario.Counterexample)
}

// TestTrialFillAndWaitSteps: fill and wait steps read as the history
// they make, and a reference to them is refused.
func TestTrialFillAndWaitSteps(t *testing.T) {
	t.Parallel()
	tr := scenarios.Trial{Steps: []scenarios.Step{
		{Op: "charge", Key: scenarios.Fresh},
		{Op: "charge", Key: scenarios.Fresh, Fill: 8},
		{Wait: 1500 * time.Millisecond},
		{Op: "charge", Key: scenarios.Again, Of: 0},
	}}
	require.NoError(t, tr.Validate())
	text := tr.String()
	assert.Contains(t, text, "2. charge with 8 other fresh keys")
	assert.Contains(t, text, "3. wait 1.5s")
	bad := tr
	bad.Steps = append(append([]scenarios.Step(nil), tr.Steps...), scenarios.Step{Op: "charge", Key: scenarios.Again, Of: 1})
	assert.ErrorContains(t, bad.Validate(), "makes no intent")
	assert.ErrorContains(t, scenarios.Trial{Steps: []scenarios.Step{{Op: "charge", Key: scenarios.Fresh, Fill: 5000}}}.Within(scenarios.Limits{}), "fresh keys")
	assert.True(t, strings.HasPrefix(text, "1. charge with a fresh key"))
}

// TestTrialProgressCountsTrialsNotShrinkSteps: the progress lines count
// generated trials up to the number asked for, say when a failing trial
// is being shrunk, and give the time left.
func TestTrialProgressCountsTrialsNotShrinkSteps(t *testing.T) {
	t.Parallel()
	var progress strings.Builder
	_, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(2)}, harness.WithSeed(3), harness.WithTrials(300),
		harness.WithChecks(harness.CheckRetrySequential), harness.WithProgress(&progress))
	require.NoError(t, err)
	assert.Contains(t, progress.String(), "failed; shrinking it")
	_, err = harness.Verify(context.Background(), []harness.Spec{lruSpec(0)}, harness.WithSeed(3), harness.WithTrials(300),
		harness.WithChecks(harness.CheckRetrySequential), harness.WithProgress(&progress))
	require.NoError(t, err)
	out := progress.String()
	assert.Regexp(t, `lru: 25 of 300 trials, about \d+s left`, out)
	for _, line := range strings.Split(out, "\n") {
		var done, total int
		if n, _ := fmt.Sscanf(line, "lru: %d of %d trials", &done, &total); n == 2 {
			assert.LessOrEqual(t, done, total, line)
		}
	}
}

// A retry of a retry is a retry of the intent the first step made: after
// other keys, it is a late retry of that intent, judged by retry.late.
// (The probe here retries after a single other key, which a cache of two
// keeps: only the trial shows the eviction.)
func TestLateRetryOfARetryIsJudgedLate(t *testing.T) {
	t.Parallel()
	tr := scenarios.Trial{Steps: []scenarios.Step{
		{Op: "charge", Key: scenarios.Fresh},
		{Op: "charge", Key: scenarios.Again, Of: 0},
		{Op: "charge", Key: scenarios.Fresh, Fill: 3},
		{Op: "charge", Key: scenarios.Again, Of: 1},
	}}
	require.NoError(t, tr.Validate())
	res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(2)}, harness.WithSeed(3), harness.WithTrials(0),
		harness.WithLateRetry(1, -1), harness.WithChecks(harness.CheckRetryLate), harness.WithReplay(scenarios.Saved{Trial: tr}))
	require.NoError(t, err)
	sc := res.Targets[0].Scenario
	require.NotNil(t, sc)
	require.Len(t, sc.Replayed, 1)
	assert.True(t, sc.Replayed[0].StillFail, "the cache forgot the intent after 3 other keys")
	assert.Equal(t, []string{harness.CheckRetryLate}, sc.Replayed[0].Checks)
}
