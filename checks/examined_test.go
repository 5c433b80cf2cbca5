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
	assert.Equal(t, record.StatusNotExamined, c.Status)
	assert.Contains(t, c.Note, faults.NameDownstreamFailBefore+" on "+opCharge)
	for _, f := range fs {
		assert.NotEqual(t, checks.CheckRetryAfterFault, f.Check, "a finding blames a fault that never acted: %s", f.Message)
	}
	require.Len(t, unfired.Unfired(), 1)
	assert.Equal(t, record.Unfired{Intent: 1, Attempt: 1, Probe: "hand-built", Operation: opCharge, Fault: faults.NameDownstreamFailBefore}, unfired.Unfired()[0])

	tr := record.TargetResult{Record: unfired}
	checks.Score(&tr)
	assert.Less(t, tr.Score.Level, 2, tr.Score.Reason)
}
