package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// replay500 is a 500 the target replays: the same status and body.
func replay500() record.Attempt {
	a := record.Attempt{Reply: record.Reply{Outcome: record.Info, Status: 500, Forwarded: true, Body: `{"ok":false,"error":"database unavailable"}`}}
	return a
}

func dependencyCases() []checkCase {
	return []checkCase{
		{
			why: "a duplicate during a stall (critical), a failure replayed under the key after the database recovered (major), retries that failed otherwise (major), a key left in progress by a failed attempt (major)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDepStall, unknown(0)), mine()).try(i, ok(201, "created", "ord_2"), mine())
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameDepError, replay500())).try(j, replay500()).try(j, replay500())
				k := b.intent(plain, opCharge)
				b.try(k, under(faults.NameDepRefuse, unknown(503))).try(k, unknown(503)).try(k, failed(400))
				l := b.intent(plain, opCharge)
				b.try(l, under(faults.NameDepError, unknown(503))).try(l, failed(409)).try(l, failed(409))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDependencyRecovery: {record.Critical, record.Major, record.Major, record.Major}},
			msgs: map[string][]string{checks.CheckDependencyRecovery: {
				"after dep-stall, retrying with the same key caused 2 effects",
				"the failure (500) that dep-error caused was replayed under the key for every retry once the database had recovered: 2 retries over",
				"after dep-refuse and the database's recovery, 2 retries with the same key over",
				"stuck in progress: after dep-error and the database's recovery, the key was answered 409 for 0s (2 retries), and nothing was done: the attempt that failed left its in-progress record behind: release it when an attempt fails",
			}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery, checks.CheckDownstream},
			pass: []string{checks.CheckEffectField},
		},
		{
			why: "a lost commit answer, then a retry that found the key and replayed",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDepResetAfterCommit, unknown(500)), mine()).try(i, ok(201, "noop", "ord_1"))
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameDepError, unknown(500))).try(j, ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckDependencyRecovery, checks.CheckExactlyOnce},
			skip: []string{checks.CheckRetryAfterFault},
		},
		{
			why: "a commit made but its answer lost: the failure stored under the key and replayed (marked as a replay), or the key left in progress (major, the effect named, no lease advised)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				stored := func() record.Attempt {
					a := replay500()
					a.Effect, a.Body = "noop", `{"ok":false,"error":"database unavailable","effect":"noop"}`
					return a
				}
				b.try(i, under(faults.NameDepResetAfterCommit, replay500()), mine()).try(i, stored()).try(i, stored())
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameDepResetAfterCommit, unknown(503)), rowed()).try(j, failed(409)).try(j, failed(409))
				// A downstream call's effect, the key kept waiting: a lease
				// (and the key passed on) is the fix, not said here.
				l := b.intent(plain, opCharge)
				b.try(l, under(faults.NameDepResetAfterCommit, unknown(503)), mine()).try(l, failed(409)).try(l, failed(409))
				k := b.intent(plain, opCharge)
				b.try(k, under(faults.NameDepResetAfterCommit, unknown(503)), mine()).try(k, unknown(500)).try(k, unknown(500))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDependencyRecovery: {record.Major, record.Major, record.Major, record.Major}},
			msgs: map[string][]string{checks.CheckDependencyRecovery: {
				"the failure (500) that dep-reset-after-commit caused was replayed under the key for every retry once the database had recovered: 2 retries over 0s, and still replayed when the client gave up, though its effect was made (charge ch_000001): the caller is told the intent failed",
				"stuck in progress: after dep-reset-after-commit and the database's recovery, its effect was made (transfer transfer_000002), but the key was answered 409 for 0s (2 retries): the effect was committed without the key's reply",
				"after dep-reset-after-commit and the database's recovery, 2 retries with the same key over 0s never succeeded (503 (dep-reset-after-commit), 409, 409)",
				"after dep-reset-after-commit and the database's recovery, its effect was made (charge ch_000004), but 2 retries with the same key over 0s never succeeded (503 (dep-reset-after-commit), 500, 500): the caller is told the intent failed though it was done",
			}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery, checks.CheckDownstream},
		},
		{
			why:  "no dependency fault was tried",
			rec:  sequentialOK(),
			skip: []string{checks.CheckDependencyRecovery},
		},
	}
}

// TestDependencyClass: the dependency faults are dependency.recovery's;
// the crashes at a commit are crash.recovery's.
func TestDependencyClass(t *testing.T) {
	r := faults.Builtin()
	for _, name := range []string{faults.NameDepError, faults.NameDepStall, faults.NameDepRefuse, faults.NameDepResetAfterCommit} {
		f, err := r.New(name, nil)
		assert.NoError(t, err)
		assert.Equal(t, faults.ClassDependency, faults.ClassOf(f), name)
	}
	for _, name := range []string{faults.NameCrashBeforeCommit, faults.NameCrashAfterCommit} {
		f, err := r.New(name, nil)
		assert.NoError(t, err)
		assert.Equal(t, faults.ClassCrash, faults.ClassOf(f), name)
	}
}

// Retries that each fail anew, with a body of their own, are no failure
// replayed under the key, even when each says it did nothing.
func TestFreshFailuresAreNoReplay(t *testing.T) {
	fresh := func(n int) record.Attempt {
		a := replay500()
		a.Effect = "noop"
		a.Body = `{"ok":false,"error":"db unavailable (req ` + string(rune('0'+n)) + `)","effect":"noop"}`
		return a
	}
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameDepError, replay500())).try(i, fresh(1)).try(i, fresh(2))
	_, found := verdicts(t, b.done())
	if assert.Len(t, found[checks.CheckDependencyRecovery], 1) {
		msg := found[checks.CheckDependencyRecovery][0].Message
		assert.NotContains(t, msg, "replayed under the key")
		assert.Contains(t, msg, "after dep-error and the database's recovery, 2 retries with the same key")
		assert.Contains(t, msg, "each retry failed anew and nothing was made: unless the target keeps its failure under the key (their replies differed, so none was seen replayed), it did not recover once the database was back. A connection pool that keeps the connections the database closed",
			"the likely cause is said: the target, not a stored failure")
	}
}
