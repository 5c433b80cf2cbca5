package harness_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// lruShop is an in-process Go-function target: a charge operation whose
// idempotency keys live in a cache of `capacity` entries. Retrying right
// away always hits the cache, so the fixed probes pass; a key retried after
// enough other intents evicted it charges again. Only a sequence finds it.
type lruShop struct {
	mu       sync.Mutex
	ledger   *fakes.Ledger
	capacity int // 0: unbounded (correct)
	// deriveKeys: a call without a key is de-duplicated by a key derived
	// from its payload instead of being refused.
	deriveKeys bool
	order      []string
	cache      map[string]harness.Reply
	inputs     map[string]string
	n          int
}

func (s *lruShop) Info() harness.TargetInfo {
	return harness.TargetInfo{Name: "lru", Kind: "func", Operations: []harness.Operation{{
		Name: "charge", Mutating: true, DryRun: true,
		Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 1 << 30}},
	}}}
}

func (s *lruShop) Supports(faults.Fault) bool { return false }
func (s *lruShop) Close() error               { return nil }

func (s *lruShop) Call(_ context.Context, c harness.Call) harness.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.DryRun {
		return harness.Reply{Outcome: harness.OK, Status: 200, Effect: "would_create", HasEffect: true, Forwarded: true}
	}
	if c.Key == "" && s.deriveKeys {
		c.Key = "derived:" + c.Inputs["amount"]
	}
	if c.Key == "" {
		return harness.Reply{Outcome: harness.Fail, Status: 400, Forwarded: true}
	}
	if rep, ok := s.cache[c.Key]; ok {
		if s.inputs[c.Key] != c.Inputs["amount"] {
			return harness.Reply{Outcome: harness.Fail, Status: 422, Forwarded: true}
		}
		rep.Effect = "noop"
		return rep
	}
	s.n++
	s.ledger.Record(fakes.Effect{Fake: "payments", Kind: "charge", ID: fmt.Sprintf("ch_%d", s.n), Markers: []string{c.Marker}})
	rep := harness.Reply{Outcome: harness.OK, Status: 200, Effect: "created", HasEffect: true, Identity: fmt.Sprintf("ord_%d", s.n), Forwarded: true}
	s.cache[c.Key], s.inputs[c.Key] = rep, c.Inputs["amount"]
	s.order = append(s.order, c.Key)
	if s.capacity > 0 && len(s.order) > s.capacity {
		delete(s.cache, s.order[0])
		s.order = s.order[1:]
	}
	return rep
}

func lruSpec(capacity int) harness.Spec {
	return harness.Spec{Name: "lru", Kind: "func", Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
		return &lruShop{ledger: env.Ledger, capacity: capacity, cache: map[string]harness.Reply{}, inputs: map[string]string{}}, nil
	}}
}

// TestTrialsFindWhatOnlyASequenceShows: the probes see nothing wrong with
// a two-entry key cache; generated trials find the eviction, shrink it to
// a handful of steps, and the saved counterexample fails again on replay.
func TestTrialsFindWhatOnlyASequenceShows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	probes, err := harness.Verify(ctx, []harness.Spec{lruSpec(2)}, harness.WithSeed(3))
	require.NoError(t, err)
	for _, f := range probes.Targets[0].Findings {
		assert.NotEqual(t, harness.CheckRetrySequential, f.Check, "the fixed probes cannot see the eviction")
	}

	tr := verifyTarget(t, ctx, lruSpec(2), harness.WithSeed(3), harness.WithTrials(300))
	sc := tr.Scenario
	require.NotNil(t, sc)
	require.NotNil(t, sc.Counterexample, "300 trials find the eviction")
	assert.LessOrEqual(t, len(sc.Counterexample.Steps), 5, "shrunk to a handful of steps:\n%s", sc.Counterexample)
	assert.False(t, sc.Flaky)
	var found bool
	for _, f := range tr.Findings {
		if f.Trial {
			found = true
			assert.Equal(t, harness.CheckRetrySequential, f.Check, f.Message)
			assert.Equal(t, record.Critical, f.Severity)
		}
	}
	require.True(t, found, "the counterexample's findings are part of the target's")
	assert.Equal(t, 0, tr.Score.Level, "a duplicated charge scores 0")
	t.Logf("counterexample:\n%s", sc.Counterexample)

	// Replayed first next time, the saved trial still fails.
	saved := scenarios.Saved{Target: "lru", Seed: 3, Trial: *sc.Counterexample}
	again, err := harness.Verify(ctx, []harness.Spec{lruSpec(2)}, harness.WithSeed(3), harness.WithReplay(saved))
	require.NoError(t, err)
	require.Len(t, again.Targets[0].Scenario.Replayed, 1)
	assert.True(t, again.Targets[0].Scenario.Replayed[0].StillFail)
	assert.Equal(t, []string{harness.CheckRetrySequential}, again.Targets[0].Scenario.Replayed[0].Checks)

	// With an unbounded cache the same trial passes: it was the eviction.
	fixed, err := harness.Verify(ctx, []harness.Spec{lruSpec(0)}, harness.WithSeed(3), harness.WithReplay(saved))
	require.NoError(t, err)
	assert.False(t, fixed.Targets[0].Scenario.Replayed[0].StillFail)
}

// TestTrialsAreDeterministic: one seed, the same trials and findings.
func TestTrialsAreDeterministic(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) *record.ScenarioResult {
		res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(2)}, harness.WithSeed(seed), harness.WithTrials(300))
		require.NoError(t, err)
		require.NotNil(t, res.Targets[0].Scenario)
		return res.Targets[0].Scenario
	}
	a, b := run(5), run(5)
	require.NotNil(t, a.Counterexample)
	assert.Equal(t, a.Counterexample, b.Counterexample)
	assert.Equal(t, a.Trials, b.Trials, "the same trial fails first")
	assert.Equal(t, len(a.Findings), len(b.Findings))
	for i := range a.Findings {
		assert.Equal(t, a.Findings[i].Message, b.Findings[i].Message)
	}
}

// TestTrialWorkersKeepTheCounterexample: trials run four at a time, each
// worker on an instance of its own (the target is Isolated), find the
// same first failing trial and the same counterexample every run of a
// seed, whatever order they finish in. (Four workers sharing one
// instance of this 24-key cache evict each other's keys, and which trial
// fails first changes from run to run.)
func TestTrialWorkersKeepTheCounterexample(t *testing.T) {
	t.Parallel()
	spec := lruSpec(24)
	spec.Isolated = true
	run := func() *record.ScenarioResult {
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(5), harness.WithTrials(300), harness.WithTrialWorkers(4))
		require.NoError(t, err)
		require.NotNil(t, res.Targets[0].Scenario)
		return res.Targets[0].Scenario
	}
	first := run()
	require.NotNil(t, first.Counterexample)
	for range 2 {
		again := run()
		assert.Equal(t, first.Trials, again.Trials, "the same trial fails first")
		assert.Equal(t, first.Counterexample, again.Counterexample)
	}
}

// TestTrialsFindNothingOnACorrectTarget: no false positive from any
// generated sequence.
func TestTrialsFindNothingOnACorrectTarget(t *testing.T) {
	t.Parallel()
	res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(0)}, harness.WithSeed(9), harness.WithTrials(300))
	require.NoError(t, err)
	sc := res.Targets[0].Scenario
	require.NotNil(t, sc)
	assert.Nil(t, sc.Counterexample, "%v", sc.Findings)
	assert.Equal(t, 300, sc.Trials)
}

// TestTrialsNeverJudgeAKeylessStepAsKeyReuse: on a target that
// de-duplicates keyless calls by their payload (as key.required allows),
// hundreds of
// generated trials with keyless steps never produce a key.mismatch: no step
// is generated "with the key of" a step that had none.
func TestTrialsNeverJudgeAKeylessStepAsKeyReuse(t *testing.T) {
	t.Parallel()
	spec := harness.Spec{Name: "lru", Kind: "func", Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
		return &lruShop{ledger: env.Ledger, deriveKeys: true, cache: map[string]harness.Reply{}, inputs: map[string]string{}}, nil
	}}
	for _, seed := range []uint64{1, 2, 3} {
		tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(seed), harness.WithTrials(200))
		require.NotNil(t, tr.Scenario)
		for _, f := range tr.Findings {
			assert.NotEqual(t, harness.CheckKeyMismatch, f.Check, "seed %d: %s\n%v", seed, f.Message, tr.Scenario.Counterexample)
		}
	}
}

// TestCheckInGoTest runs the go test API against the correct target. It
// takes no faults, so it cannot show more than level 1.
func TestCheckInGoTest(t *testing.T) {
	t.Parallel()
	harness.Check(t, lruSpec(0), harness.WithSeed(1), harness.WithTrials(50), harness.WithMinScore(1))
}

// keyLog records every key a target's instances were sent.
type keyLog struct {
	mu   sync.Mutex
	keys map[string]bool
}

// keyedShop is an lruShop that logs the keys of its calls.
type keyedShop struct {
	*lruShop
	log *keyLog
}

func (s *keyedShop) Call(ctx context.Context, c harness.Call) harness.Reply {
	s.log.mu.Lock()
	s.log.keys[c.Key] = true
	s.log.mu.Unlock()
	return s.lruShop.Call(ctx, c)
}

// TestTrialKeysRepeatWithTheNonce: trials run four at a time, on instances
// of their own, send byte for byte the same keys in two runs with the
// same seed and nonce, whichever worker ran which trial first; another
// nonce sends none of them.
func TestTrialKeysRepeatWithTheNonce(t *testing.T) {
	t.Parallel()
	run := func(nonce uint64) map[string]bool {
		log := &keyLog{keys: map[string]bool{}}
		spec := harness.Spec{Name: "lru", Kind: "func", Isolated: true, Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
			return &keyedShop{lruShop: &lruShop{ledger: env.Ledger, cache: map[string]harness.Reply{}, inputs: map[string]string{}}, log: log}, nil
		}}
		tr := verifyTarget(t, context.Background(), spec, harness.WithSeed(8), harness.WithNonce(nonce), harness.WithTrials(60), harness.WithTrialWorkers(4))
		require.Nil(t, tr.Scenario.Counterexample)
		delete(log.keys, "")
		return log.keys
	}
	a, b, c := run(77), run(77), run(78)
	require.NotEmpty(t, a)
	assert.Equal(t, a, b, "the same seed and nonce: the same keys")
	for k := range c {
		assert.False(t, a[k], "key %s sent again with another nonce", k)
	}
}
