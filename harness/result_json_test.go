package harness_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

// TestResultRoundTrip: a result written by WriteJSON reads back as the
// same result (written again, byte for byte), and re-scored by Merge it
// says what the run said.
func TestResultRoundTrip(t *testing.T) {
	t.Parallel()
	spec, _ := shopSpec("shop", shopConfig{ignoreKeys: true})
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(4))
	require.NoError(t, err)
	require.NotEmpty(t, res.Targets[0].Findings, "a flawed target, so that findings make the trip")
	// The gate and a comparison with a baseline make the trip too.
	require.NoError(t, harness.Compare(res, res))
	harness.ApplyGate(res, harness.DefaultMinScore, "old/result.json")
	require.NotNil(t, res.Targets[0].Baseline)

	var first bytes.Buffer
	require.NoError(t, res.WriteJSON(&first))
	path := filepath.Join(t.TempDir(), record.ResultFile)
	require.NoError(t, os.WriteFile(path, first.Bytes(), 0o644))

	back, err := record.ReadResultFile(path)
	require.NoError(t, err)
	assert.Equal(t, path, back.Source)
	var second bytes.Buffer
	require.NoError(t, back.WriteJSON(&second))
	assert.Equal(t, first.String(), second.String(), "what is read back is what was written")
	assert.Equal(t, res.Gate, back.Gate)
	assert.Equal(t, res.Targets[0].Gate, back.Targets[0].Gate)
	assert.Equal(t, res.Targets[0].Baseline, back.Targets[0].Baseline)

	rescored, err := harness.Merge(back)
	require.NoError(t, err)
	assert.Equal(t, shardVerdictsOf(t, res.Targets[0]), shardVerdictsOf(t, rescored.Targets[0]))
}

// TestMergeChecksTheShardsAreOneRun: Merge refuses shards that are not
// exactly one run, naming the results.
func TestMergeChecksTheShardsAreOneRun(t *testing.T) {
	t.Parallel()
	shard := func(source string, seed uint64, sh string) *record.Result {
		return &record.Result{Schema: record.ResultSchema, Seed: seed, Meta: record.Meta{Shard: sh}, Source: source}
	}
	s1, s2 := shard("s1.json", 3, "1/2"), shard("s2.json", 3, "2/2")
	whole := shard("whole.json", 3, "")
	for _, tc := range []struct {
		why  string
		rs   []*record.Result
		want string
	}{
		{"a missing shard", []*record.Result{s1}, "shard(s) 2/2 missing"},
		{"a shard twice", []*record.Result{s1, s2, s1}, "s1.json and s1.json are both shard 1/2"},
		{"different splits", []*record.Result{s1, shard("s1of3.json", 3, "1/3")}, "s1.json is shard 1/2 but s1of3.json is shard 1/3"},
		{"a whole run among shards", []*record.Result{s1, whole}, "whole.json is a whole run"},
		{"different seeds", []*record.Result{s1, shard("other.json", 4, "2/2")}, "s1.json (seed 3) and other.json (seed 4) are not from one run"},
		{"a shard that is not i/n", []*record.Result{s1, shard("bad.json", 3, "2of2")}, `bad.json: meta.shard: "2of2" is not i/n`},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := harness.Merge(tc.rs...)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := harness.Merge(s1, s2)
	assert.NoError(t, err, "every shard once is one run")
}
