package harness_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

func finding(check, op, fault string, sev record.Severity) record.Finding {
	return record.Finding{Check: check, Operation: op, Fault: fault, Severity: sev, Message: check + " failed"}
}

func target(name string, level int, fs ...record.Finding) harness.TargetResult {
	return harness.TargetResult{Name: name, Kind: "http", Score: record.ScoreResult{Level: level, Reason: "because"}, Findings: fs}
}

// TestGate: each row is a case of the gate's rule, without a baseline.
func TestGate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		why      string
		t        harness.TargetResult
		minScore int
		met      bool
		reason   string
	}{
		{"the default gate fails a weak target", target("a", 1, finding("effect.field", "op", "", record.Major)), 3, false, "score 1, below --min-score 3"},
		{"a lowered gate passes it", target("a", 1, finding("effect.field", "op", "", record.Major)), 1, true, "score 1 meets --min-score 1"},
		{"a critical finding fails even --min-score 0", target("a", 0, finding("exactly-once", "op", "reset", record.Critical)), 0, false, "a critical finding (exactly-once op [reset])"},
		{"a clean target passes the default gate", target("a", 3), 3, true, "score 3 meets --min-score 3"},
		{"a target that could not be tested fails", harness.TargetResult{Name: "a", Error: "refused"}, 0, false, "not tested, so not scored"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			res := &record.Result{Targets: []harness.TargetResult{tc.t}}
			harness.ApplyGate(res, tc.minScore, "")
			require.NotNil(t, res.Gate)
			assert.Equal(t, tc.met, res.Gate.Met)
			assert.Equal(t, tc.minScore, res.Gate.MinScore)
			assert.Equal(t, tc.met, res.Targets[0].Gate.Met)
			assert.Equal(t, tc.reason, res.Targets[0].Gate.Reason)
			if !tc.met {
				assert.Equal(t, "a: "+tc.reason, res.Gate.Reason, "the run's reason names the target")
			}
		})
	}
}

// TestPartialScore: a run restricted to some checks has no computed
// score; the gate then judges only the findings of the checks that ran.
func TestPartialScore(t *testing.T) {
	t.Parallel()
	res := &record.Result{Meta: record.Meta{Only: []string{harness.CheckKeyRequired}}, Targets: []harness.TargetResult{
		target("clean", 0),
		target("minor", 0, finding(harness.CheckKeyRequired, "op", "", record.Minor)),
	}}
	checks.MarkPartial(res)
	for _, tr := range res.Targets {
		assert.True(t, tr.Score.Partial, tr.Name)
		assert.Contains(t, tr.Score.Reason, "only key.required ran (--only)")
		assert.NotContains(t, tr.Score.Reason, "score 0")
	}
	harness.ApplyGate(res, 1, "")
	assert.True(t, res.Gate.Met, "a minor finding does not keep a target below 1: %s", res.Gate.Reason)
	harness.ApplyGate(res, 3, "")
	assert.False(t, res.Gate.Met, "a minor finding keeps a target below 3")
	assert.True(t, res.Targets[0].Gate.Met, "no finding: a partial score does not fail by itself")
	assert.Equal(t, "minor: a minor finding (key.required op)", res.Gate.Reason)

	all := &record.Result{Targets: []harness.TargetResult{target("t", 2)}}
	for _, c := range harness.Checks() {
		all.Meta.Only = append(all.Meta.Only, c.ID)
	}
	checks.MarkPartial(all)
	assert.False(t, all.Targets[0].Score.Partial, "every check ran: the score is whole")
}

// TestBaseline: compared with an earlier result, a target fails the gate
// only on what is new.
func TestBaseline(t *testing.T) {
	t.Parallel()
	old := finding(harness.CheckEffectField, "create", "", record.Major)
	fixed := finding(harness.CheckKeyMismatch, "create", "", record.Minor)
	base := &record.Result{Meta: record.Meta{ConfigDigest: "abc"}, Targets: []harness.TargetResult{
		target("same", 1, old, fixed),
		target("worse", 2, fixed),
		target("better", 1, old),
	}}
	newer := finding(harness.CheckReplayConsistent, "create", "reset", record.Major)
	cur := &record.Result{Meta: record.Meta{ConfigDigest: "abc"}, Targets: []harness.TargetResult{
		target("same", 1, old, old),
		target("worse", 1, newer),
		target("better", 3),
		target("added", 2, fixed),
	}}
	require.NoError(t, harness.Compare(base, cur))
	harness.ApplyGate(cur, 3, "old/result.json")

	same := cur.Targets[0]
	require.NotNil(t, same.Baseline)
	assert.Equal(t, record.ScoreSame, same.Baseline.ScoreChange)
	assert.Len(t, same.Baseline.Still, 1, "two findings of one check, operation and cause are one")
	assert.Empty(t, same.Baseline.New)
	require.Len(t, same.Baseline.Fixed, 1)
	assert.Equal(t, harness.CheckKeyMismatch, same.Baseline.Fixed[0].Check)
	assert.True(t, same.Gate.Met, "below 3, but nothing new: %s", same.Gate.Reason)

	worse := cur.Targets[1]
	assert.Equal(t, record.ScoreLower, worse.Baseline.ScoreChange)
	require.Len(t, worse.Baseline.New, 1)
	assert.False(t, worse.Gate.Met)
	assert.Equal(t, "a new major finding (replay.consistent create [reset])", worse.Gate.Reason)

	better := cur.Targets[2]
	assert.Equal(t, record.ScoreHigher, better.Baseline.ScoreChange)
	assert.Len(t, better.Baseline.Fixed, 1)
	assert.True(t, better.Gate.Met)

	added := cur.Targets[3]
	assert.Nil(t, added.Baseline, "a target the baseline did not have")
	assert.Equal(t, []string{"added"}, cur.Gate.NewTargets, "is named")
	assert.Empty(t, cur.Gate.GoneTargets)
	assert.False(t, added.Gate.Met, "is judged as without one")

	assert.False(t, cur.Gate.Met)
	assert.Equal(t, "old/result.json", cur.Gate.Baseline)

	// A lower score alone fails, even with no new finding.
	lower := &record.Result{Meta: base.Meta, Targets: []harness.TargetResult{target("same", 0, old)}}
	require.NoError(t, harness.Compare(base, lower))
	harness.ApplyGate(lower, 1, "b")
	assert.Equal(t, "same: score 0, lower than the baseline's 1; targets worse, better of the baseline not in this run (renamed or removed)", lower.Gate.Reason)
}

// TestBaselineTellsDownstreamPointsApart: one fault armed at two
// downstream calls of an operation makes two findings, each its own: a
// duplicate now at the email is new beside the baseline's at the
// payments. A baseline whose findings name no call (made before findings
// named one) matches whatever call a finding now names.
func TestBaselineTellsDownstreamPointsApart(t *testing.T) {
	t.Parallel()
	at := func(point string) record.Finding {
		f := finding(harness.CheckDownstream, "order", "downstream-503-after", record.Critical)
		f.Point = point
		return f
	}
	base := &record.Result{Targets: []harness.TargetResult{target("shop", 0, at("payments"))}}
	cur := &record.Result{Targets: []harness.TargetResult{target("shop", 0, at("payments"), at("email"))}}
	require.NoError(t, harness.Compare(base, cur))
	d := cur.Targets[0].Baseline
	require.Len(t, d.New, 1)
	assert.Equal(t, "downstream.propagation order [downstream-503-after at email]", d.New[0].String())
	require.Len(t, d.Still, 1)
	assert.Equal(t, "payments", d.Still[0].Point)
	assert.Empty(t, d.Fixed)

	legacy := &record.Result{Targets: []harness.TargetResult{target("shop", 0, at(""))}}
	cur = &record.Result{Targets: []harness.TargetResult{target("shop", 0, at("email"))}}
	require.NoError(t, harness.Compare(legacy, cur))
	d = cur.Targets[0].Baseline
	assert.Empty(t, d.New, "a baseline that named no call")
	assert.Len(t, d.Still, 1)
	assert.Empty(t, d.Fixed)
}

// TestBaselineFromAnotherConfiguration: an edited configuration keeps its
// history; only a shard is refused.
func TestBaselineFromAnotherConfiguration(t *testing.T) {
	t.Parallel()
	base := &record.Result{Meta: record.Meta{Config: "a.yaml", ConfigDigest: "aaaaaaaaaaaaaaaa"}}
	cur := &record.Result{Meta: record.Meta{Config: "b.yaml", ConfigDigest: "bbbbbbbbbbbbbbbb"}}
	require.NoError(t, harness.Compare(base, cur))
	require.NoError(t, harness.CheckBaseline(&record.Result{Meta: record.Meta{Command: "demo"}}, cur.Meta))
	err := harness.CheckBaseline(&record.Result{Meta: record.Meta{ConfigDigest: "b", Shard: "1/2"}}, record.Meta{ConfigDigest: "b"})
	assert.ErrorContains(t, err, "shard 1/2 of a run, which judged only part of it: merge its shards first")
}
