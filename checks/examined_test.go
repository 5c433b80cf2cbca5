package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestUnfiredFaultIsNotExamined: an intent retried after a downstream
// fault that left two effects is a critical finding of retry.after-fault
// when the fault acted; when it was armed and never acted, the finding
// would blame a cause that never was, so it is dropped, and the check,
// with nothing else to judge, is not examined: not a pass, and the score
// cannot claim the level it is needed for.
func TestUnfiredFaultIsNotExamined(t *testing.T) {
	build := func(notFired bool) *record.Record {
		b := newRec()
		i := b.intent(plain, opCharge)
		a := under(faults.NameDownstreamFailBefore, unknown(503))
		a.NotFired = notFired
		b.try(i, a, mine()).try(i, ok(201, "created", "ord_2"), mine())
		return b.done()
	}
	status := func(cs []record.CheckResult, id string) record.CheckResult {
		for _, c := range cs {
			if c.ID == id {
				return c
			}
		}
		t.Fatalf("no verdict for %s", id)
		return record.CheckResult{}
	}

	fired := build(false)
	cs, fs := checks.Evaluate(fired)
	assert.Equal(t, record.StatusFail, status(cs, checks.CheckRetryAfterFault).Status)
	require.NotEmpty(t, fs)
	assert.Empty(t, fired.Unfired())

	unfired := build(true)
	cs, fs = checks.Evaluate(unfired)
	c := status(cs, checks.CheckRetryAfterFault)
	assert.Equal(t, record.StatusSkip, c.Status)
	assert.Contains(t, c.Note, "not examined")
	assert.Contains(t, c.Note, faults.NameDownstreamFailBefore+" on "+opCharge)
	for _, f := range fs {
		assert.NotEqual(t, checks.CheckRetryAfterFault, f.Check, "a finding blames a fault that never acted: %s", f.Message)
	}
	require.Len(t, unfired.Unfired(), 1)
	assert.Equal(t, record.Unfired{Intent: 1, Attempt: 1, Probe: "hand-built", Operation: opCharge,
		Fault: faults.NameDownstreamFailBefore, FaultClass: string(faults.ClassDownstream)}, unfired.Unfired()[0])

	tr := record.TargetResult{Record: unfired}
	checks.Score(&tr)
	assert.Less(t, tr.Score.Level, 2, tr.Score.Reason)
}

// TestUnfiredNoteGivesTheReason: a dependency fault that never acted
// because the proxy never found the intent's statements leaves
// dependency.recovery not examined, and its note gives the reason the
// run listed for it (what to change), not the one of a fake that saw no
// call; a fault listed with no more reason keeps that one.
func TestUnfiredNoteGivesTheReason(t *testing.T) {
	const why = "the proxy never saw this intent's marker in a statement: store the marker with the rows, or set attribute: in-flight on the dependency"
	build := func(reason string) *record.Record {
		b := newRec()
		i := b.intent(plain, opCharge)
		a := under(faults.NameDepError, ok(201, "created", "ord_1"))
		a.FaultClass = string(faults.ClassDependency)
		a.NotFired = true
		b.try(i, a, mine())
		rec := b.done()
		rec.Unexamined = append(rec.Unexamined, record.Unexamined{Check: checks.CheckDependencyRecovery, Operation: opCharge,
			Fault: faults.NameDepError, Cause: record.CauseUnfired, Reason: reason})
		return rec
	}
	note := func(rec *record.Record) string {
		cs, _ := checks.Evaluate(rec)
		for _, c := range cs {
			if c.ID == checks.CheckDependencyRecovery {
				assert.Equal(t, record.StatusSkip, c.Status, c.Note)
				return c.Note
			}
		}
		t.Fatal("no verdict for dependency.recovery")
		return ""
	}
	n := note(build(why))
	assert.Contains(t, n, "not examined")
	assert.Contains(t, n, why)
	assert.NotContains(t, n, "the target made no call or effect")
	n = note(build(checks.UnfiredReason))
	assert.Contains(t, n, "the target made no call or effect")
	assert.NotContains(t, n, why)
}

// TestUnfiredFaultWithNothingToActOnLeavesTheCheckJudged: the same
// downstream fault that never acted, listed by the run as unsupported
// (the target called no fake in the whole run), is left out as a fault
// never armed would be: its finding is still dropped, and the check is
// judged on the rest: a pass when another fault acted and showed nothing
// wrong, skipped (never passed) when nothing else was examined.
func TestUnfiredFaultWithNothingToActOnLeavesTheCheckJudged(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other bool // a retry after a reset that acted, and replayed
		want  record.Status
	}{{"another fault examined", true, record.StatusPass}, {"nothing else examined", false, record.StatusSkip}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			i := b.intent(plain, opCharge)
			a := under(faults.NameDownstreamFailBefore, unknown(503))
			a.NotFired = true
			b.try(i, a, mine()).try(i, ok(201, "created", "ord_2"), mine())
			if tc.other {
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameReset, unknown(0)), mine()).try(j, ok(201, "noop", "ord_3"))
			}
			rec := b.done()
			rec.Unexamined = append(rec.Unexamined, record.Unexamined{Check: checks.CheckRetryAfterFault, Operation: opCharge,
				Fault: faults.NameDownstreamFailBefore, Cause: record.CauseUnsupported, Reason: "the target made no call to the payments fake in the whole run"})
			cs, fs := checks.Evaluate(rec)
			for _, c := range cs {
				if c.ID == checks.CheckRetryAfterFault {
					assert.Equal(t, tc.want, c.Status, c.Note)
					if tc.want == record.StatusSkip {
						assert.Contains(t, c.Note, "made no call to the payments fake")
					}
				}
			}
			for _, f := range fs {
				assert.NotEqual(t, checks.CheckRetryAfterFault, f.Check, "a finding blames a fault that had nothing to act on: %s", f.Message)
			}
		})
	}
}

// A fault whose attempt was answered with a final refusal (a 4xx, a
// tool's isError that says no status) is followed by no retry: the
// check that judges retries after it did not see one, and says so,
// rather than passing on nothing.
func TestAFaultMetByAFinalRefusalIsNotExamined(t *testing.T) {
	refused := func(b *recBuilder) {
		i := b.intent(plain, opCharge)
		a := under(faults.NameDepError, failed(400))
		a.Error = "isError: commit failed, retry with the same key"
		b.try(i, a)
	}
	listed := func(t *testing.T, rec *record.Record, results map[string]record.CheckResult) {
		t.Helper()
		var list []record.CheckResult
		for _, c := range checks.Checks() {
			list = append(list, results[c.ID])
		}
		var got []record.Unexamined
		for _, u := range checks.NotExamined(rec, list, nil) {
			if u.Check == checks.CheckDependencyRecovery {
				got = append(got, u)
			}
		}
		require.Len(t, got, 1, "%v", got)
		assert.Equal(t, record.CauseRefused, got[0].Cause)
		assert.Equal(t, "dependency.recovery at charge under dep-error", got[0].Subject())
		assert.Contains(t, got[0].Reason, "the attempt the fault acted on was answered with a final refusal (isError: commit failed, retry with the same key), so no retry with the same key followed it")
		assert.True(t, got[0].Limits(), "what a retry does was not seen: the score cannot claim it")
	}
	t.Run("alone", func(t *testing.T) {
		b := newRec()
		refused(b)
		results, found := verdicts(t, b.done())
		assert.Empty(t, found[checks.CheckDependencyRecovery])
		c := results[checks.CheckDependencyRecovery]
		assert.Equal(t, record.StatusSkip, c.Status, "nothing was retried, nothing passed")
		assert.Contains(t, c.Note, "not examined: the attempt the fault acted on was answered with a final refusal")
		listed(t, b.done(), results)
	})
	t.Run("beside a retried one", func(t *testing.T) {
		b := newRec()
		refused(b)
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDepError, unknown(503)))
		b.try(i, ok(201, "created", "ord_1"), mine())
		results, _ := verdicts(t, b.done())
		assert.Equal(t, record.StatusPass, results[checks.CheckDependencyRecovery].Status, "what was retried passed")
		listed(t, b.done(), results)
	})
	t.Run("a check with a finding, or left out, lists nothing refused", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDownstreamFailBefore, failed(400)))
		refused(b)
		results, found := verdicts(t, b.done())
		require.NotEmpty(t, found[checks.CheckRetryAfterFault], "the refusal under downstream-503 is retry.after-fault's finding")
		disabled := results[checks.CheckDependencyRecovery]
		disabled.Status, disabled.Note = record.StatusSkip, "disabled"
		results[checks.CheckDependencyRecovery] = disabled
		var list []record.CheckResult
		for _, c := range checks.Checks() {
			list = append(list, results[c.ID])
		}
		var all []record.Finding
		for _, fs := range found {
			all = append(all, fs...)
		}
		for _, u := range checks.NotExamined(b.done(), list, all) {
			assert.NotEqual(t, record.CauseRefused, u.Cause, u.String())
			if u.Check == checks.CheckDependencyRecovery {
				assert.Equal(t, record.CauseDisabled, u.Cause)
			}
		}
	})
	t.Run("a check failed by another fault still lists the refused one", func(t *testing.T) {
		b := newRec()
		refused(b)
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDepStall, unknown(0)), mine()).try(i, ok(201, "created", "ord_2"), mine())
		results, found := verdicts(t, b.done())
		require.Len(t, found[checks.CheckDependencyRecovery], 1, "the stall's duplicate")
		require.Equal(t, faults.NameDepStall, found[checks.CheckDependencyRecovery][0].Fault)
		var list []record.CheckResult
		for _, c := range checks.Checks() {
			list = append(list, results[c.ID])
		}
		var got []record.Unexamined
		for _, u := range checks.NotExamined(b.done(), list, found[checks.CheckDependencyRecovery]) {
			if u.Cause == record.CauseRefused {
				got = append(got, u)
			}
		}
		require.Len(t, got, 1, "dep-error was met by a refusal, whatever dep-stall found")
		assert.Equal(t, "dependency.recovery at charge under dep-error", got[0].Subject())
	})
	t.Run("a command-line tool is told its exit codes", func(t *testing.T) {
		b := newRec()
		b.rec.Target.Kind = "cli"
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDepError, failed(1)))
		results, _ := verdicts(t, b.done())
		c := results[checks.CheckDependencyRecovery]
		assert.Contains(t, c.Note, "answered with a final refusal (exit 1)")
		assert.Contains(t, c.Note, "exits with one of its retry_exit_codes")
	})
	t.Run("a retry followed", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDepError, unknown(503)))
		b.try(i, ok(201, "created", "ord_1"), mine())
		results, _ := verdicts(t, b.done())
		assert.Equal(t, record.StatusPass, results[checks.CheckDependencyRecovery].Status)
		var list []record.CheckResult
		for _, c := range checks.Checks() {
			list = append(list, results[c.ID])
		}
		for _, u := range checks.NotExamined(b.done(), list, nil) {
			assert.NotEqual(t, record.CauseRefused, u.Cause, u.String())
		}
	})
}
