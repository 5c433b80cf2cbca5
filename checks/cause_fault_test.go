package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestFindingNamesTheFaultThatMadeIt: an intent that met several faults
// (a generated trial's steps under one key) has its duplicate named by the
// fault of the attempt under way when the first effect landed, whose
// effect the caller was not told of, and anything else by its first fault
// that acted; in the finding's Fault and its message, so a trial finding
// that restates a probe's is known for one. Regression: a 503 before the
// charge, then a 503 after it, was reported as a duplicate "after
// downstream-503".
func TestFindingNamesTheFaultThatMadeIt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why   string
		rec   func(b *recBuilder)
		check string
		fault string
		msg   string
		// severity is the finding's, critical when not given.
		severity record.Severity
	}{
		{
			why: "a downstream 503 before the charge, then one after it, then a retry that charged again",
			rec: func(b *recBuilder) {
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailBefore, unknown(503))).
					try(i, under(faults.NameDownstreamFailAfter, unknown(503)), keyed("")).
					try(i, ok(201, "created", "ord_1"), keyed(""))
			},
			check: checks.CheckDownstream,
			fault: faults.NameDownstreamFailAfter,
			msg:   "after downstream-503-after the downstream recorded 2 effects",
		},
		{
			why: "a 503 from the proxy, then a crash after the charge, then a retry that charged again",
			rec: func(b *recBuilder) {
				i := b.intent(plain, opCharge)
				b.try(i, notForwarded(under(faults.NameUnavailableBefore, unknown(503)))).
					try(i, under(faults.NameCrashAfterEffect, unknown(0)), mine()).
					try(i, ok(201, "created", "ord_1"), mine())
			},
			check: checks.CheckCrashRecovery,
			fault: faults.NameCrashAfterEffect,
			msg:   "after crash-after-effect and a restart, retrying with the same key caused 2 effects",
		},
		{
			why: "a fault that never acted is not named: the duplicate is the lost reply's",
			rec: func(b *recBuilder) {
				i := b.intent(plain, opCharge)
				unfired := under(faults.NameDownstreamFailAfter, ok(201, "created", "ord_1"))
				unfired.NotFired = true
				b.try(i, under(faults.NameLostResponse, unknown(0)), mine()).
					try(i, unfired).
					try(i, ok(201, "created", "ord_1"), mine())
			},
			check: checks.CheckDownstream,
			fault: faults.NameLostResponse,
			msg:   "after lost-response the downstream recorded 2 effects",
		},
		{
			why: "retries that never succeeded are named by the first fault, where the failures began, not by a crash among them",
			rec: func(b *recBuilder) {
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDepError, unknown(500))).
					try(i, unknown(500)).
					try(i, under(faults.NameCrashAfterReply, unknown(0))).
					try(i, unknown(500))
			},
			check:    checks.CheckCrashRecovery,
			fault:    faults.NameDepError,
			msg:      "after dep-error and a restart, 3 retries with the same key never succeeded",
			severity: record.Major,
		},
		{
			why: "two faults of the same weight: the first is named, as before",
			rec: func(b *recBuilder) {
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(0)), mine()).
					try(i, under(faults.NameReset, unknown(0))).
					try(i, ok(201, "created", "ord_1"), mine())
			},
			check: checks.CheckRetryAfterFault,
			fault: faults.NameLostResponse,
			msg:   "after lost-response",
		},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			b := newRec()
			tc.rec(b)
			_, found := verdicts(t, b.done())
			require.Len(t, found[tc.check], 1, "findings:%s", describe(found[tc.check]))
			f := found[tc.check][0]
			want := tc.severity
			if want == "" {
				want = record.Critical
			}
			assert.Equal(t, want, f.Severity, f.Message)
			assert.Equal(t, tc.fault, f.Fault, f.Message)
			assert.Contains(t, f.Message, tc.msg)
		})
	}
}

// Two sends made within one attempt whose downstream connection the fake
// dropped once it had acted were sent again by the target itself (its own
// retry, or its HTTP client's resend): the finding says so. Sends made by
// two attempts, one each, are idemcheck's retry's and get no such word.
func TestASendRepeatedWithinOneAttemptIsTheTargets(t *testing.T) {
	for _, within := range []bool{true, false} {
		b := newRec()
		i := b.intent(plain, opCharge)
		if within {
			b.try(i, under(faults.NameDownstreamResetAfter, unknown(502)), emailed("idk-0001/email"), emailed("idk-0001/email")).
				try(i, ok(201, "created", "ord_1"))
		} else {
			b.try(i, under(faults.NameDownstreamResetAfter, unknown(502)), emailed("idk-0001/email")).
				try(i, ok(201, "created", "ord_1"), emailed("idk-0001/email"))
		}
		f := onlyFinding(t, b.done(), checks.CheckDownstream)
		assert.Contains(t, f.Message, "given the same key (idk-0001/email) but did not de-duplicate it")
		if within {
			assert.Contains(t, f.Message, "Two of them were made within one attempt (attempt 1), the second once the email fake had dropped the connection that carried the first: the target sent the call again itself")
		} else {
			assert.NotContains(t, f.Message, "within one attempt")
		}
	}
}

// A finding made under a fault armed at one of an operation's downstream
// calls names that call (record.Finding.Point): the same fault at two
// calls makes two findings, each its own across runs.
func TestAFindingNamesTheDownstreamCallItsFaultWasArmedAt(t *testing.T) {
	b := newRec()
	for _, point := range []record.EffectPoint{{Index: 1, Fake: "payments", N: 1}, {Index: 2, Fake: "email", N: 1}} {
		i := b.intent(plain, opCharge)
		a := under(faults.NameDownstreamFailAfter, unknown(503))
		a.Point = &point
		b.try(i, a, emailed("")).try(i, ok(201, "created", "ord_1"), emailed(""))
	}
	fs := findingsOf(t, b.done(), checks.CheckDownstream)
	require.Len(t, fs, 2)
	assert.Equal(t, "payments", fs[0].Point)
	assert.Equal(t, "email", fs[1].Point)
	assert.NotEqual(t, fs[0].Key().ID(), fs[1].Key().ID())
	assert.Equal(t, "downstream.propagation charge [downstream-503-after at email]", fs[1].Key().String())
}

// A retry after the client left that acts again, where who served the
// attempts says nothing, is blamed on the work the target went on with
// after its client left; a target whose retries one at a time act again
// too is not honouring the key at all.
func TestARetryAfterTheClientLeftBlamesTheAbandonedWork(t *testing.T) {
	for _, ignores := range []bool{false, true} {
		b := newRec()
		if ignores {
			s := b.intent(plain, opCharge)
			b.try(s, ok(201, "created", "ord_8"), mine()).try(s, ok(201, "created", "ord_9"), mine())
		}
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameClientDisconnect, unknown(0))).try(i, ok(201, "created", "ord_1"), keyed("charge:k"), keyed("charge:k"))
		f := onlyFinding(t, b.done(), checks.CheckRetryAfterFault)
		if ignores {
			assert.Contains(t, f.Message, "the key is not honoured at all")
			assert.NotContains(t, f.Message, "after its client left")
			continue
		}
		assert.Contains(t, f.Message, "; the target went on with the first attempt after its client left, and the retry did not find the key: claim the key before the work begins")
		assert.NotContains(t, f.Message, "no idempotency key", "the charges went with the key")
	}
	// A client that gave up at its timeout left too.
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameClientTimeout, unknown(0))).try(i, ok(201, "created", "ord_1"), keyed("charge:k"), keyed("charge:k"))
	f := onlyFinding(t, b.done(), checks.CheckRetryAfterFault)
	assert.Contains(t, f.Message, "; the target went on with the first attempt after its client left, and the retry did not find the key")

	// A charge made again without a key is named beside it.
	b = newRec()
	i = b.intent(plain, opCharge)
	b.try(i, under(faults.NameClientDisconnect, unknown(0))).try(i, ok(201, "created", "ord_1"), keyed(""), keyed(""))
	f = onlyFinding(t, b.done(), checks.CheckRetryAfterFault)
	assert.Contains(t, f.Message, "after its client left")
	assert.Contains(t, f.Message, "; the payments charge request also went with no idempotency key, which would have kept it to one")
}
