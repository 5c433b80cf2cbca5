package checks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// The parts of a clean record, by the check each one feeds; cleanRecord
// leaves out the ones named.
const (
	partSequential = "sequential retry"
	partFault      = "retry after a fault"
	partBurst      = "burst"
	partMismatch   = "mismatch"
	partNoKey      = "no key"
	partDryRun     = "dry run"
	partRead       = "read"
)

// cleanRecord is a record of a flawless target that gives every check the
// rubric needs something to judge.
func cleanRecord(omit ...string) *recBuilder {
	b := newRec()
	if !contains(omit, partSequential) {
		i := b.intent(plain, opCharge)
		b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
	}
	if !contains(omit, partFault) {
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameLostResponse, unknown(503)), mine()).try(i, ok(201, "noop", "ord_2"))
	}
	if !contains(omit, partBurst) {
		i := b.intent(burstR, opCharge)
		b.burst(i, []record.Attempt{ok(201, "created", "ord_3"), failed(409)}, mine())
		b.try(i, ok(201, "noop", "ord_3"))
	}
	if !contains(omit, partMismatch) {
		o := b.intent(plain, opCharge)
		b.try(o, ok(201, "created", "ord_4"), mine())
		b.try(b.intent(mismatch, opCharge, o), failed(422))
	}
	if !contains(omit, partNoKey) {
		i := b.intent(noKey, opCharge)
		b.try(i, failed(400)).try(i, failed(400))
	}
	if !contains(omit, partDryRun) {
		d := b.intent(dryRun, opCharge)
		b.try(d, dry(ok(200, "would_create", "")))
		b.try(b.intent(afterDry, opCharge, d), ok(201, "created", "ord_5"), mine())
	}
	if !contains(omit, partRead) {
		r := b.intent(read, opBalance)
		b.try(r, ok(200, "noop", "")).try(r, ok(200, "noop", ""))
	}
	return b
}

func scored(t *testing.T, rec *record.Record) record.TargetResult {
	t.Helper()
	tr := record.TargetResult{Name: "shop", Kind: "func", Record: rec}
	require.NotPanics(t, func() { checks.Score(&tr) })
	return tr
}

func TestScoreLevels(t *testing.T) {
	tests := []struct {
		why   string
		rec   *record.Record
		level int
		// gap is the check the next level is blocked by ("" for none);
		// gapFinding is its finding's index, -1 for a check that did not run.
		gap        string
		gapFinding int
	}{
		{
			why:   "a flawless record reaches 3 with nothing left to show",
			rec:   cleanRecord().done(),
			level: 3,
		},
		{
			why: "any critical finding scores 0",
			rec: func() *record.Record {
				b := cleanRecord()
				b.try(b.intent(plain, opCharge), ok(201, "created", "ord_9"))
				return b.done()
			}(),
			level: 0, gap: checks.CheckExactlyOnce, gapFinding: 0,
		},
		{
			why: "any major finding scores 1",
			rec: func() *record.Record {
				b := cleanRecord()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_9"), mine()).try(i, ok(200, "noop", "ord_9"))
				return b.done()
			}(),
			level: 1, gap: checks.CheckReplayConsistent, gapFinding: 0,
		},
		{
			why: "any minor finding scores 2",
			rec: func() *record.Record {
				b := cleanRecord()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_9"), mine())
				b.try(b.intent(mismatch, opCharge, o), ok(201, "noop", "ord_9"))
				return b.done()
			}(),
			level: 2, gap: checks.CheckKeyMismatch, gapFinding: 0,
		},
		{
			why: "the gap points at the first finding that blocks the level, not the first finding: a major (index 0) then a critical (index 1)",
			rec: func() *record.Record {
				b := cleanRecord()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_9"), mine()).try(i, failed(409))
				b.try(b.intent(plain, opCharge), ok(201, "created", "ord_10"))
				return b.done()
			}(),
			level: 0, gap: checks.CheckExactlyOnce, gapFinding: 1,
		},
		{
			why: "minor and major findings: the major decides (score 1), and the gap names it",
			rec: func() *record.Record {
				b := cleanRecord()
				nk := b.intent(noKey, opCharge)
				b.try(nk, ok(201, "created", "ord_8"), mine()).try(nk, ok(201, "created", "ord_9"), mine())
				b.try(b.intent(plain, opCharge), ok(201, "", "ord_10"), mine())
				return b.done()
			}(),
			level: 1, gap: checks.CheckEffectField, gapFinding: 1,
		},
		{
			why:   "no burst: concurrent.duplicates skipped caps the score at 1",
			rec:   cleanRecord(partBurst).done(),
			level: 1, gap: checks.CheckConcurrentDuplicates, gapFinding: -1,
		},
		{
			why:   "no fault tried: retry.after-fault skipped caps the score at 1",
			rec:   cleanRecord(partFault).done(),
			level: 1, gap: checks.CheckRetryAfterFault, gapFinding: -1,
		},
		{
			why:   "no key reused: key.mismatch skipped caps the score at 2",
			rec:   cleanRecord(partMismatch).done(),
			level: 2, gap: checks.CheckKeyMismatch, gapFinding: -1,
		},
		{
			why:   "no keyless call: key.required skipped caps the score at 2",
			rec:   cleanRecord(partNoKey).done(),
			level: 2, gap: checks.CheckKeyRequired, gapFinding: -1,
		},
		{
			why:   "no sequential retry: retry.sequential skipped caps the score at 0",
			rec:   cleanRecord(partSequential).done(),
			level: 0, gap: checks.CheckRetrySequential, gapFinding: -1,
		},
		{
			why:   "checks no level needs (safe.readonly here) may skip without a cap",
			rec:   cleanRecord(partRead).done(),
			level: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			tr := scored(t, tt.rec)
			require.Empty(t, tr.Error)
			assert.Equal(t, tt.level, tr.Score.Level, "findings:%s", describe(tr.Findings))
			assert.NotEmpty(t, tr.Score.Reason)
			if tt.gap == "" {
				assert.Nil(t, tr.Score.Next)
				assert.Empty(t, tr.Findings)
				return
			}
			require.NotNil(t, tr.Score.Next)
			gap := tr.Score.Next
			assert.Equal(t, tt.level+1, gap.Level)
			assert.Equal(t, checks.Rubric()[tt.level].Condition, gap.Condition)
			assert.Equal(t, tt.gap, gap.Check)
			assert.Equal(t, tt.gapFinding, gap.Finding, "findings:%s", describe(tr.Findings))
			if gap.Finding >= 0 {
				require.Less(t, gap.Finding, len(tr.Findings))
				assert.Equal(t, gap.Check, tr.Findings[gap.Finding].Check)
				assert.Equal(t, tr.Findings[gap.Finding].Message, gap.Message)
				// The reason names the finding in the way, not only the
				// condition it fails.
				f := tr.Findings[gap.Finding]
				assert.Contains(t, tr.Score.Reason, "; blocked by "+f.Check+" ("+string(f.Severity))
			} else {
				assert.Contains(t, gap.Message, tt.gap)
				assert.Contains(t, gap.Message, "did not run")
				assert.NotContains(t, tr.Score.Reason, "blocked by", "no finding blocks: the gap's message says which check did not run")
			}
		})
	}
}

// TestScoreDisabledNeededCheck: disabling any check a level needs caps the
// score just below that level, with a gap that names it.
func TestScoreDisabledNeededCheck(t *testing.T) {
	for _, l := range checks.Rubric() {
		for _, id := range l.Needs {
			t.Run(id, func(t *testing.T) {
				rec := cleanRecord().done()
				switch id {
				case checks.CheckWebhookSignature, checks.CheckWebhookOrder:
					// Needed only of targets that sign, or reorder, deliveries.
					caps := record.DefaultCapabilities()
					caps.Signatures = id == checks.CheckWebhookSignature
					caps.Reorder = id == checks.CheckWebhookOrder
					rec.Target.Capabilities = &caps
				}
				rec.Checks = checksExcept(id)
				tr := scored(t, rec)
				require.Empty(t, tr.Error)
				assert.Equal(t, l.Level-1, tr.Score.Level)
				require.NotNil(t, tr.Score.Next)
				assert.Equal(t, id, tr.Score.Next.Check)
				assert.Equal(t, l.Level, tr.Score.Next.Level)
				assert.Equal(t, -1, tr.Score.Next.Finding)
			})
		}
	}
}

func TestRubricShape(t *testing.T) {
	levels := checks.Rubric()
	require.Len(t, levels, record.TopScore, "a score goes from 0 to record.TopScore")
	for i, l := range levels {
		assert.Equal(t, i+1, l.Level)
		assert.NotEmpty(t, l.Condition)
		for _, id := range l.Needs {
			assert.True(t, checks.KnownCheck(id), "level %d needs unknown check %q", l.Level, id)
		}
	}
	assert.Equal(t, []record.Severity{critical, major, minor}, []record.Severity{levels[0].Forbids, levels[1].Forbids, levels[2].Forbids})
}

// TestScoreUntestable: a record the checks cannot judge gets an Error
// instead of a score.
func TestScoreUntestable(t *testing.T) {
	tests := []struct {
		why  string
		rec  *record.Record
		want []string // substrings of the Error; none for a testable record
	}{
		{
			why: "effects that carry no known marker cannot be attributed",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), unmarked()).try(i, ok(201, "noop", "ord_1"), markedBy("idem-ffffffffffffffff"))
				return b.done()
			}(),
			want: []string{"recorded 2 effects but none carries an intent marker", "{{marker}}"},
		},
		{
			why: "an operation that never succeeded is named, with its last answer",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, unknown(503)).try(i, unknown(503))
				b.try(b.intent(read, opBalance), ok(200, "noop", ""))
				return b.done()
			}(),
			want: []string{"charge never succeeded in 2 attempts (last: answered 503", "unavailable", "check the operation's method, path, body and inputs"},
		},
		{
			why: "a transport error is the last answer when there is one",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(read, opBalance)
				a := unknown(0)
				a.Error = "dial tcp 127.0.0.1:1: connection refused"
				b.try(i, a)
				return b.done()
			}(),
			want: []string{"balance never succeeded in 1 attempt (last: dial tcp 127.0.0.1:1: connection refused)"},
		},
		{
			why: "409 is not a success: an operation only ever answered 409 never succeeded",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, failed(409)).try(i, failed(409))
				return b.done()
			}(),
			want: []string{"charge never succeeded in 2 attempts (last: answered 409"},
		},
		{
			why: "an observer that found nothing in the whole run, beside fakes that counted: its effects are not counted",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
				b.rec.Observers = []string{"orders-file (file) found no order for any of the 120 markers; /tmp/x/orders.json never existed"}
				return b.done()
			}(),
			want: []string{"an effect observer found nothing in the whole run, though the target acknowledged at least 1 mutating intent: orders-file (file) found no order for any of the 120 markers; /tmp/x/orders.json never existed; the effects it was declared to count are not counted"},
		},
		{
			why: "an observer that found some: testable",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
				b.rec.Observers = []string{"orders-file (file) found an order for 115 of the 120 markers"}
				return b.done()
			}(),
		},
		{
			why: "faulted failures and refused keyless calls do not count as never succeeded",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(plain, opCharge), under(faults.NameUnavailableBefore, notForwarded(unknown(503))))
				nk := b.intent(noKey, opCharge)
				b.try(nk, failed(400)).try(nk, failed(400))
				b.try(b.intent(read, opBalance), ok(200, "noop", ""))
				return b.done()
			}(),
		},
		{
			why: "a refused dry run or mismatch does not count either",
			rec: func() *record.Record {
				b := cleanRecord()
				b.try(b.intent(dryRun, opCharge), dry(failed(400)))
				return b.done()
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			tr := scored(t, tt.rec)
			if len(tt.want) == 0 {
				assert.Empty(t, tr.Error)
				assert.NotEmpty(t, tr.Checks, "a testable record is judged")
				return
			}
			for _, w := range tt.want {
				assert.Contains(t, tr.Error, w)
			}
			assert.Empty(t, tr.Findings, "an untestable record is not judged")
			assert.Equal(t, 0, tr.Score.Level)
		})
	}
}

// TestScoreStuckAfterCrashIsAFinding: when the only attempts at an
// operation are a crash and the retries stuck behind it (a run restricted to
// crash.recovery), the stuck retries are crash.recovery's finding, not a
// sign that the operation is misconfigured.
func TestScoreStuckAfterCrashIsAFinding(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameCrashBeforeEffect, unknown(0))).try(i, failed(409)).try(i, failed(409))
	rec := b.done()
	rec.Checks = []string{checks.CheckCrashRecovery}
	tr := scored(t, rec)
	if tr.Error != "" {
		t.Logf("Error: %s", tr.Error)
	}
	require.Len(t, tr.Findings, 1)
	assert.Equal(t, checks.CheckCrashRecovery, tr.Findings[0].Check)
	assert.Contains(t, tr.Findings[0].Message, "stuck in progress")
}

func TestScoreWithoutRecord(t *testing.T) {
	tr := record.TargetResult{Name: "shop", Error: "not run: context canceled"}
	require.NotPanics(t, func() { checks.Score(&tr) })
	assert.Equal(t, "not run: context canceled", tr.Error)
	assert.Nil(t, tr.Checks)
}

// A tool whose only flaw is that it has no annotations is told so, not
// that level 3 needs key enforcement and dry runs (which it has).
func TestScoreReasonNamesTheMissingAnnotation(t *testing.T) {
	rec := cleanRecord().done()
	caps := record.DefaultCapabilities()
	caps.Annotations = true
	rec.Target.Kind, rec.Target.Capabilities = "mcp", &caps
	tr := scored(t, rec)
	require.Empty(t, tr.Error)
	assert.Equal(t, 2, tr.Score.Level, tr.Score.Reason)
	assert.Contains(t, tr.Score.Reason, "score 2: level 3 needs annotations that say truthfully how each tool behaves; charge has no annotations at all")
	assert.NotContains(t, tr.Score.Reason, "framework level")
}

// TestScoreReasonNamesTheBlocker: a score's reason names the finding in
// the next level's way; a finding of a check of a higher level says that
// the level admits no finding of its severity, whatever the check.
func TestScoreReasonNamesTheBlocker(t *testing.T) {
	t.Run("a major finding of a level-3 check keeps the target at 1", func(t *testing.T) {
		b := cleanRecord()
		m := b.intent(record.RoleMalformedKey, opCharge)
		b.rec.Intent(m).Key = "idk-00000000000000a2-" + strings.Repeat("x", checks.MalformedKeyLength-21)
		b.try(m, unknown(502))
		tr := scored(t, b.done())
		require.Equal(t, 1, tr.Score.Level, tr.Score.Reason)
		assert.Contains(t, tr.Score.Reason, "; blocked by key.malformed (major, at charge), a check of level 3: level 2 admits no major or critical finding of any check")
	})
	t.Run("a blocker found by a generated trial says so", func(t *testing.T) {
		tr := record.TargetResult{Name: "shop", Kind: "func", Record: cleanRecord().done(), Scenario: &record.ScenarioResult{
			Trials: 10, Replays: 3, Reproduced: 3,
			Findings: []record.Finding{{Check: checks.CheckExactlyOnce, Severity: critical, Operation: opCharge, Message: "charge: lost"}},
		}}
		checks.Score(&tr)
		require.Equal(t, 0, tr.Score.Level, tr.Score.Reason)
		assert.Contains(t, tr.Score.Reason, "; blocked by exactly-once (critical, at charge, found by a generated trial)")
	})
	t.Run("a critical finding of a level-1 check needs no more words", func(t *testing.T) {
		b := cleanRecord()
		i := b.intent(plain, opCharge)
		b.try(i, ok(201, "created", "ord_9"), mine()).try(i, ok(201, "created", "ord_10"), mine())
		tr := scored(t, b.done())
		require.Equal(t, 0, tr.Score.Level, tr.Score.Reason)
		assert.Regexp(t, `; blocked by [a-z.-]+ \(critical, at charge\)$`, tr.Score.Reason)
	})
}

// TestScoreReasonNamesEveryBlockingCheck: when findings of several checks
// keep a target below a level, the reason names the others too: fixing
// the first alone would not raise the score.
func TestScoreReasonNamesEveryBlockingCheck(t *testing.T) {
	b := cleanRecord()
	b.try(b.intent(plain, opCharge), ok(201, "", "ord_10"), mine()) // effect.field: major
	m := b.intent(record.RoleMalformedKey, opCharge)                // key.malformed: major
	b.rec.Intent(m).Key = "idk-00000000000000a2-" + strings.Repeat("x", checks.MalformedKeyLength-21)
	b.try(m, unknown(502))
	tr := scored(t, b.done())
	require.Equal(t, 1, tr.Score.Level, tr.Score.Reason)
	require.NotNil(t, tr.Score.Next)
	assert.Contains(t, tr.Score.Reason, "; blocked by "+tr.Score.Next.Check+" (major")
	var majors []string
	for _, f := range tr.Findings {
		if f.Severity == major && f.Check != tr.Score.Next.Check && !slices.Contains(majors, f.Check) {
			majors = append(majors, f.Check)
		}
	}
	require.NotEmpty(t, majors, "findings:%s", describe(tr.Findings))
	assert.Contains(t, tr.Score.Reason, "; also by "+strings.Join(majors, ", "))

	one := scored(t, cleanRecord().done())
	assert.NotContains(t, one.Score.Reason, "also by", "a target at 3 has nothing in its way")
}

// A level 3 reached by a target to which some of its conditions do not
// apply (a webhook: no key beside the payload, no dry run) says which
// were not checked; a target to which all apply says nothing of it.
func TestScoreReasonNamesWhatDidNotApply(t *testing.T) {
	tr := scored(t, cleanRecord().done())
	require.Equal(t, 3, tr.Score.Level)
	assert.NotContains(t, tr.Score.Reason, "not checked")

	rec := cleanRecord().done()
	rec.Target.Kind = "webhook"
	rec.Target.Capabilities = &record.Capabilities{EventKeys: true}
	tr = scored(t, rec)
	require.Equal(t, 3, tr.Score.Level, tr.Score.Reason)
	assert.Contains(t, tr.Score.Reason, "every condition of level 3 that applies to this kind of target holds: no finding at all; its framework-level conditions (idempotency is enforced")
	assert.Contains(t, tr.Score.Reason, ") do not apply to it, and were not checked: dryrun, effect.field, key.mismatch, key.required")
}

// A queue consumer's retries after a fault are the broker's redeliveries:
// with no retry.after-fault (no fake takes its calls, so no downstream
// fault acts), consumer.redelivery having run shows what level 2 needs;
// a consumer with fakes, and another kind of target, still need
// retry.after-fault itself.
func TestAConsumersRedeliveriesStandInForRetriesAfterAFault(t *testing.T) {
	for _, tc := range []struct {
		name       string
		consumer   bool
		observed   bool // its effects counted by observers alone
		redelivery bool
		level      int
		// blocked is the check the score says did not run.
		blocked string
	}{
		{"a consumer counted by observers whose redeliveries were tried", true, true, true, 3, ""},
		// Not retry.after-fault, which it never runs: the stand-in is
		// what would show level 2.
		{"a consumer counted by observers whose redeliveries were not tried", true, true, false, 1, checks.CheckConsumerRedelivery},
		{"a consumer with fakes, which takes a downstream fault", true, false, true, 1, checks.CheckRetryAfterFault},
		{"not a consumer", false, true, true, 1, checks.CheckRetryAfterFault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := cleanRecord(partFault)
			if tc.consumer {
				caps := record.DefaultCapabilities()
				caps.Redelivery, caps.ObservedOnly = true, tc.observed
				b.rec.Target.Capabilities = &caps
			}
			if tc.redelivery {
				i := b.intent(plain, opCharge)
				b.try(i, redelivered("broker-lost-ack", "delivered #1, ack-dropped #1, delivered #2, acked #2", ok(201, "created", "ord_9")), mine())
			}
			tr := scored(t, b.done())
			require.Empty(t, tr.Error)
			assert.Equal(t, tc.level, tr.Score.Level, tr.Score.Reason)
			if tc.level < 2 {
				require.NotNil(t, tr.Score.Next)
				assert.Equal(t, tc.blocked, tr.Score.Next.Check)
				assert.Equal(t, tc.blocked+" did not run (skipped), so level 2 cannot be shown", tr.Score.Next.Message)
			}
		})
	}
}
