package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// served is a with the incarnation of the target that served it.
func served(incarnation int, a record.Attempt) record.Attempt {
	a.Incarnation = incarnation
	return a
}

// A generated trial that restarts the target between an intent's success
// and its retry under another fault: the duplicate is the restart's (the
// key store did not survive it), and the finding names the restart, not
// the fault of the step after it. Without the restart, the same history
// is the fault's.
func TestARestartBetweenAttemptsIsNamedAsTheCause(t *testing.T) {
	history := func(afterRestart int) *record.Record {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, served(1, ok(201, "created", "ord_1")), mine())
		b.try(i, served(afterRestart, under(faults.NameHang, unknown(0))), mine())
		b.try(i, served(afterRestart, ok(201, "created", "ord_2")))
		return b.done()
	}

	results, found := verdicts(t, history(2))
	require.Len(t, found[checks.CheckCrashRecovery], 1, "the restart's check judges it")
	f := found[checks.CheckCrashRecovery][0]
	assert.Equal(t, record.Critical, f.Severity)
	assert.Equal(t, checks.RestartCause, f.Fault)
	assert.Contains(t, f.Message, "charge: after a restart of the target between its attempts (then hang), retrying with the same key caused 2 effects")
	assert.Contains(t, f.Message, "the target restarted between the attempts (incarnations 1 and 2), and the key store did not survive the restart")
	assert.Empty(t, found[checks.CheckRetryAfterFault], "the hang did not cause it")
	assert.Equal(t, record.StatusSkip, results[checks.CheckRetryAfterFault].Status)

	results, found = verdicts(t, history(1))
	require.Len(t, found[checks.CheckRetryAfterFault], 1, "one incarnation: the fault's")
	f = found[checks.CheckRetryAfterFault][0]
	assert.Equal(t, faults.NameHang, f.Fault)
	assert.NotContains(t, f.Message, "restart")
	assert.Empty(t, found[checks.CheckCrashRecovery])
	assert.Equal(t, record.StatusSkip, results[checks.CheckCrashRecovery].Status)
}

// A crash fault's own restart keeps the crash's name: the restart is the
// fault's doing, not a step of its own.
func TestACrashFaultKeepsItsName(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, served(1, under(faults.NameCrashAfterEffect, unknown(0))), mine())
	b.try(i, served(2, ok(201, "created", "ord_2")), mine())
	_, found := verdicts(t, b.done())
	require.Len(t, found[checks.CheckCrashRecovery], 1)
	assert.Equal(t, faults.NameCrashAfterEffect, found[checks.CheckCrashRecovery][0].Fault)
	assert.Contains(t, found[checks.CheckCrashRecovery][0].Message, "after crash-after-effect and a restart, retrying with the same key caused 2 effects")
}

// A trial that restarts the target after a fault had already made the
// duplicate: the restart did not make it, and the fault's check judges
// the intent; a restart that came first and a fault after it is said in
// that order.
func TestADuplicateBeforeTheRestartIsTheFaults(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, served(1, under(faults.NameDepStall, unknown(0))), mine())
	b.try(i, served(1, ok(201, "created", "ord_2")), mine())
	b.try(i, served(2, ok(201, "noop", "ord_1")))
	_, found := verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckCrashRecovery], "the restart came after the duplicate")
	require.Len(t, found[checks.CheckDependencyRecovery], 1, "the stall's check judges it")
	f := found[checks.CheckDependencyRecovery][0]
	assert.Equal(t, record.Critical, f.Severity)
	assert.Equal(t, faults.NameDepStall, f.Fault)
	assert.NotContains(t, f.Message, "restart")

	// The stall's first attempt made the effect, the restart came, and
	// the retry after it made another: the restart's, after the stall.
	b = newRec()
	i = b.intent(plain, opCharge)
	b.try(i, served(1, under(faults.NameDepStall, unknown(0))), mine())
	b.try(i, served(2, ok(201, "created", "ord_2")), mine())
	_, found = verdicts(t, b.done())
	require.Len(t, found[checks.CheckCrashRecovery], 1)
	f = found[checks.CheckCrashRecovery][0]
	assert.Equal(t, checks.RestartCause, f.Fault)
	assert.Contains(t, f.Message, "charge: after dep-stall, then a restart of the target between its attempts, retrying with the same key caused 2 effects")
}
