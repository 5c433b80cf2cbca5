package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestFindingNamesTheFaultThatMadeIt: when a lighter fault came before
// the one that decides who judges an intent (a generated trial's steps
// under one key), the finding names the heavier one, the cause of what it
// reports, in its Fault and its message; so a trial finding that restates
// a probe's is known for one. Regression: a 503 before the charge, then a
// 503 after it, was reported as a duplicate "after downstream-503".
func TestFindingNamesTheFaultThatMadeIt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why   string
		rec   func(b *recBuilder)
		check string
		fault string
		msg   string
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
			assert.Equal(t, record.Critical, f.Severity, f.Message)
			assert.Equal(t, tc.fault, f.Fault, f.Message)
			assert.Contains(t, f.Message, tc.msg)
		})
	}
}
