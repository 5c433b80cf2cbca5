package harness_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

// shardVerdicts is what must not depend on how a run was split: the intents
// (ids, keys, markers, inputs, roles), the check statuses, the findings
// (check, severity, operation, fault) and the score.
type shardVerdicts struct {
	Intents  []string
	Checks   []record.CheckResult
	Findings []string
	Score    int
}

func shardVerdictsOf(t *testing.T, tr harness.TargetResult) shardVerdicts {
	t.Helper()
	require.Empty(t, tr.Error)
	var v shardVerdicts
	for _, in := range tr.Record.Intents {
		v.Intents = append(v.Intents, in.Operation+" "+string(in.Role)+" "+in.Key+" "+in.Marker+" "+in.Inputs["amount"])
	}
	v.Checks = tr.Checks
	for _, f := range tr.Findings {
		v.Findings = append(v.Findings, f.Check+" "+string(f.Severity)+" "+f.Operation+" "+f.Fault)
	}
	v.Score = tr.Score.Level
	return v
}

// TestMergedShardsEqualTheWholeRun splits runs of a correct and of flawed
// targets three ways and checks that the merged shards say what the
// unsharded run says.
func TestMergedShardsEqualTheWholeRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why string
		cfg shopConfig
	}{
		{"a correct target has nothing to report either way", shopConfig{}},
		{"duplicates found in one shard survive the merge", shopConfig{ignoreKeys: true}},
		{"a crash flaw is judged on the merged ledger", shopConfig{volatile: true, noDownstreamKey: true}},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			ctx := context.Background()
			spec, _ := shopSpec("shop", tc.cfg)
			whole, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(11), harness.WithNonce(11))
			require.NoError(t, err)
			var parts []*record.Result
			for i := 1; i <= 3; i++ {
				spec, _ := shopSpec("shop", tc.cfg)
				part, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(11), harness.WithNonce(11), harness.WithShard(i, 3))
				require.NoError(t, err)
				assert.Equal(t, "", part.Targets[0].Error)
				assert.Less(t, len(part.Targets[0].Record.Intents), len(whole.Targets[0].Record.Intents), "a shard runs part of the probes")
				parts = append(parts, part)
			}
			merged, err := harness.Merge(parts...)
			require.NoError(t, err)
			require.Len(t, merged.Targets, 1)
			assert.Equal(t, shardVerdictsOf(t, whole.Targets[0]), shardVerdictsOf(t, merged.Targets[0]))
		})
	}
}

func TestMergeRefusesShardsOfDifferentRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := shopSpec("shop", shopConfig{})
	b, _ := shopSpec("shop", shopConfig{})
	r1, err := harness.Verify(ctx, []harness.Spec{a}, harness.WithSeed(1), harness.WithShard(1, 2))
	require.NoError(t, err)
	r2, err := harness.Verify(ctx, []harness.Spec{b}, harness.WithSeed(2), harness.WithShard(2, 2))
	require.NoError(t, err)
	_, err = harness.Merge(r1, r2)
	assert.ErrorContains(t, err, "seeds differ")
	_, err = harness.Merge(r1, r1)
	assert.ErrorContains(t, err, "in two shards")
	_, err = harness.Verify(ctx, []harness.Spec{a}, harness.WithShard(3, 2))
	assert.ErrorContains(t, err, "shard 3/2")
}
