package checks_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// The cause a duplicate's finding states comes from which effects
// repeated: when the charge passed on under a key was made once and only
// the email, sent without a key, repeated, the target's key store is not
// what the finding blames.

const emailCause = "the payments charge was made once but the email message was sent"

func TestBurstWhereOnlyTheUnkeyedEmailRepeatsBlamesTheEmail(t *testing.T) {
	b := newRec()
	i := b.intent(burstR, opCharge)
	b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_1"), ok(201, "created", "ord_1")},
		keyed("charge:idk-0001"), emailed(""), emailed(""), emailed(""))
	f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
	assert.Contains(t, f.Message, emailCause+" 3 times: the email send was given no idempotency key; pass it a key derived from the request's key")
	assert.NotContains(t, f.Message, "atomically")
}

func TestBurstWhereTheChargeRepeatsKeepsTheAtomicClaim(t *testing.T) {
	b := newRec()
	i := b.intent(burstR, opCharge)
	b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_2")},
		mine(), mine(), emailed(""), emailed(""))
	f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
	assert.Contains(t, f.Message, "the key is checked and claimed in two steps; claim it atomically")
	assert.NotContains(t, f.Message, "email")
}

func TestSequentialRetryWhereOnlyTheEmailRepeatsSaysTheKeyReachedTheCharge(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), keyed("charge:idk-0001"), emailed(""))
	b.try(i, ok(201, "created", "ord_1"), emailed(""))
	f := onlyFinding(t, b.done(), checks.CheckRetrySequential)
	assert.Contains(t, f.Message, emailCause+" 2 times: the email send was given no idempotency key")
	assert.NotContains(t, f.Message, "not honoured")
}

func TestSequentialRetryThatChargesAgainIsNotHonoured(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), keyed("charge:idk-0001"), emailed("receipt:idk-0001"))
	b.try(i, ok(201, "created", "ord_2"), keyed("charge:idk-0001-2"), emailed("receipt:idk-0001-2"))
	f := onlyFinding(t, b.done(), checks.CheckRetrySequential)
	assert.Contains(t, f.Message, "the key is not honoured")
}

func TestLateRetryOfAnEmailIsNotACharge(t *testing.T) {
	b := newRec()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	i := b.intent(record.RoleLate, opCharge)
	b.try(i, ok(201, "created", "ord_1"), keyed("charge:idk-0001"), emailed(""))
	j := b.intent(record.RoleFiller, opCharge)
	b.try(j, ok(201, "created", "ord_2"), keyed("charge:idk-0002"), emailed(""))
	b.try(i, ok(201, "created", "ord_1"), emailed(""))
	in, other := b.rec.Intent(i), b.rec.Intent(j)
	in.Attempts[0].Start, in.Attempts[0].End = clock, clock.Add(time.Millisecond)
	other.Attempts[0].Start, other.Attempts[0].End = clock.Add(2*time.Millisecond), clock.Add(3*time.Millisecond)
	in.Attempts[1].Start, in.Attempts[1].End = clock.Add(time.Second), clock.Add(time.Second+time.Millisecond)
	f := onlyFinding(t, b.done(), checks.CheckRetryLate)
	assert.Contains(t, f.Message, emailCause+" 2 times")
	assert.Contains(t, f.Message, "(1 of 1 late retries sent an email message again)")
	assert.NotContains(t, f.Message, "charged again")
	assert.NotContains(t, f.Message, "key store")
}

func TestLateRetryThatChargesAgainBlamesTheKeyStore(t *testing.T) {
	rec := lateRecord(16, []int{1}, 0, func(int, time.Duration) bool { return true })
	f := onlyFinding(t, rec, checks.CheckRetryLate)
	assert.Contains(t, f.Message, "the key store forgot the key")
	assert.Contains(t, f.Message, "late retries charged again). Keep every key")
}

func TestBurstOfATargetThatIgnoresKeysIsNotARace(t *testing.T) {
	b := newRec()
	s := b.intent(plain, opCharge)
	b.try(s, ok(201, "created", "ord_1"), mine()).try(s, ok(201, "created", "ord_2"), mine())
	i := b.intent(burstR, opCharge)
	b.burst(i, []record.Attempt{ok(201, "created", "ord_3"), ok(201, "created", "ord_4")}, mine(), mine())
	f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
	assert.Contains(t, f.Message, "a retry one at a time acted again too: the key is not honoured at all")
	assert.NotContains(t, f.Message, "atomically")
}

// onlyFinding evaluates rec and returns check's one finding.
func onlyFinding(t *testing.T, rec *record.Record, check string) record.Finding {
	t.Helper()
	_, found := verdicts(t, rec)
	fs := found[check]
	require.Len(t, fs, 1, describe(fs))
	return fs[0]
}

// inSession is a with its reply served in session s.
func inSession(a record.Attempt, s string) record.Attempt {
	a.Session = s
	return a
}

// onInstance is a with its reply served by instance n.
func onInstance(a record.Attempt, n string) record.Attempt {
	a.Instance = n
	return a
}

// A target that ignores its keys duplicates a burst whose copies came in
// different sessions, but the sessions do not explain it: a retry one at a
// time in one session acted again too. The burst's spread over sessions is
// the cause only when a retry one at a time in another session than the
// first acted again, after a success or after a fault that lost only the
// reply; with no such retry, the claim in two steps is named, and a store
// kept per session is said not to be ruled out.
func TestBurstOverSessionsBlamesTheSessionsOnlyWhenOneSessionKeepsKeys(t *testing.T) {
	lostReply := unknown(0)
	lostReply.Fault = "reset"
	for _, tc := range []struct {
		name string
		// first and second are the sequential retry's two attempts, and
		// session the second's session.
		first, second record.Attempt
		session       string
		want          string
		not           string
	}{
		{"ignored in one session", ok(201, "created", "ord_1"), ok(201, "created", "ord_2"), "session 1", "a retry one at a time acted again too: the key is not honoured at all", "per session"},
		{"replayed in one session", ok(201, "created", "ord_1"), ok(201, "noop", "ord_1"), "session 1",
			"either the keys are kept per session (keep them for the whole server, whatever the session), or the key is checked and claimed in two steps (claim it atomically): the copies were sent at the same time to different sessions (session 3, session 4), and no retry one at a time went to another session than the one that answered first to tell which", "not honoured"},
		{"the retry in another session", ok(201, "created", "ord_1"), ok(201, "created", "ord_2"), "session 2", "the keys are kept per session", "claim"},
		{"the retry in another session after a lost reply", lostReply, ok(201, "created", "ord_2"), "session 2", "the keys are kept per session", "claim"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			s := b.intent(plain, opCharge)
			b.try(s, inSession(tc.first, "session 1"), mine())
			if tc.second.Effect == "noop" {
				b.try(s, inSession(tc.second, tc.session))
			} else {
				b.try(s, inSession(tc.second, tc.session), mine())
			}
			i := b.intent(burstR, opCharge)
			b.burst(i, []record.Attempt{inSession(ok(201, "created", "ord_3"), "session 3"), inSession(ok(201, "created", "ord_4"), "session 4")}, mine(), mine())
			f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
			assert.Contains(t, f.Message, tc.want)
			assert.NotContains(t, f.Message, tc.not)
		})
	}
}

// A store kept per session that also forgets keys soon acts again on a
// late retry in one session: that says the store is short-lived, not
// that the key is ignored, and the burst spread over sessions may still
// be the sessions' doing (with no retry in another session, a claim in
// two steps is named beside it).
func TestLateRetryInOneSessionDoesNotSayTheKeyIsIgnored(t *testing.T) {
	b := newRec()
	s := b.intent(plain, opCharge)
	b.try(s, inSession(ok(201, "created", "ord_1"), "session 1"), mine())
	b.try(s, inSession(ok(201, "noop", "ord_1"), "session 1"))
	l := b.intent(record.RoleLate, opCharge)
	b.try(l, inSession(ok(201, "created", "ord_2"), "session 1"), mine())
	b.try(l, inSession(ok(201, "created", "ord_3"), "session 1"), mine())
	i := b.intent(burstR, opCharge)
	b.burst(i, []record.Attempt{inSession(ok(201, "created", "ord_4"), "session 3"), inSession(ok(201, "created", "ord_5"), "session 4")}, mine(), mine())
	fs := findingsOf(t, b.done(), checks.CheckConcurrentDuplicates)
	require.Len(t, fs, 1)
	assert.Contains(t, fs[0].Message, "either the keys are kept per session")
	assert.NotContains(t, fs[0].Message, "not honoured")
}

// A burst spread over sessions or instances whose copies in one session
// (instance) alone acted more than once is a claim in two steps, not a
// store per session (instance): one session's copies would otherwise
// have shared their key.
func TestARaceWithinOneSessionIsNotBlamedOnSessions(t *testing.T) {
	for _, tc := range []struct {
		name string
		by   func(record.Attempt, string) record.Attempt
		// one, two are what tells the copies apart.
		one, two string
		not      string
	}{
		{"sessions", inSession, "session 1", "session 2", "kept per session"},
		{"instances", onInstance, "instance 1", "instance 2", "one store per instance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			i := b.intent(burstR, opCharge)
			b.burst(i, []record.Attempt{tc.by(ok(201, "created", "ord_1"), tc.one), tc.by(ok(201, "created", "ord_2"), tc.one),
				tc.by(ok(201, "created", "ord_3"), tc.two)}, mine(), mine(), mine())
			f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
			assert.Contains(t, f.Message, "claim it atomically ("+tc.one+" alone answered copies sent at the same time as different results)")
			assert.NotContains(t, f.Message, tc.not)
		})
	}
}

// Copies that all answer with one identity (a server that names the
// result by the caller's request id) still show a race when they made
// more effects than there were sessions (instances) among them: one of
// them acted twice on its own, which a store kept per session does not
// explain.
func TestMoreEffectsThanSessionsIsARace(t *testing.T) {
	for _, tc := range []struct {
		name string
		by   func(record.Attempt, string) record.Attempt
		what string
		not  string
	}{
		{"sessions", inSession, "session", "kept per session"},
		{"instances", onInstance, "instance", "one store per instance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			i := b.intent(burstR, opCharge)
			b.burst(i, []record.Attempt{tc.by(ok(201, "created", "inv_1"), tc.what+" 1"), tc.by(ok(201, "created", "inv_1"), tc.what+" 1"),
				tc.by(ok(201, "created", "inv_1"), tc.what+" 2")}, mine(), mine(), mine())
			f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
			assert.Contains(t, f.Message, "claim it atomically (3 effects from copies sent at the same time to 2 "+tc.what+"s, "+tc.what+" 1, "+tc.what+" 2: one "+tc.what+" acted more than once)")
			assert.NotContains(t, f.Message, tc.not)
		})
	}
}

// findingsOf evaluates rec and returns check's findings.
func findingsOf(t *testing.T, rec *record.Record, check string) []record.Finding {
	t.Helper()
	_, found := verdicts(t, rec)
	return found[check]
}

// rowed is a row an observer found in the target's own database for the
// intent: its own record of the intent, no call given a key.
func rowed() fakes.Effect {
	return fakes.Effect{Fake: "ledger-db", Kind: "transfer", Observed: true}
}

// A target's own row, found by an observer, is no downstream call: made
// once, it shows the intent itself was not repeated, so an email sent
// again without a key is the cause; repeated, it is the target's own
// store at fault, never a call "given no idempotency key".
func TestObservedRowsAreTheTargetsOwnRecordNotADownstreamCall(t *testing.T) {
	t.Run("row once, email repeated without a key", func(t *testing.T) {
		b := newRec()
		i := b.intent(burstR, opCharge)
		b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_1"), ok(201, "created", "ord_1")},
			rowed(), emailed(""), emailed(""), emailed(""))
		f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
		assert.Contains(t, f.Message, "the ledger-db transfer was recorded once but the email message was sent 3 times: the email send was given no idempotency key")
		assert.NotContains(t, f.Message, "atomically")
	})
	t.Run("row repeated, email once under a key", func(t *testing.T) {
		b := newRec()
		i := b.intent(burstR, opCharge)
		b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_2"), ok(201, "created", "ord_3")},
			rowed(), rowed(), rowed(), emailed("receipt:idk-0001"))
		f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
		assert.Contains(t, f.Message, "the key is checked and claimed in two steps; claim it atomically")
		assert.NotContains(t, f.Message, "ledger-db call")
		assert.NotContains(t, f.Message, "given no idempotency key")
	})
	t.Run("after a stalled database, only the email repeated", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDepStall, unknown(0)), rowed(), emailed(""))
		b.try(i, ok(201, "noop", "ord_1"), emailed(""))
		f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
		assert.Contains(t, f.Message, "the ledger-db transfer was recorded once but the email message was sent 2 times: the email send was given no idempotency key")
		assert.NotContains(t, f.Message, "lease")
	})
}

// A crash right after the target's database committed its write, whose
// retry wrote the row again, shows that commit did not carry the key:
// that is the cause given, not the key store's loss in the crash.
func TestCrashAfterCommitThatWritesAgainBlamesTheTransaction(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameCrashAfterCommit, unknown(0)), rowed(), emailed("receipt:idk-0001"))
	b.try(i, ok(201, "created", "ord_2"), rowed())
	f := onlyFinding(t, b.done(), checks.CheckCrashRecovery)
	assert.Contains(t, f.Message, "the key and its reply are not written in the transaction that writes the effect")
	assert.NotContains(t, f.Message, "did not survive the crash")
}

// After a downstream fault, a duplicate whose effects include the
// target's own row is not said to be all the downstream's.
func TestDownstreamFindingCountsTheOwnRowAsTheIntents(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameDownstreamFailAfter, unknown(502)), rowed(), emailed(""))
	b.try(i, ok(201, "created", "ord_1"), emailed(""))
	f := onlyFinding(t, b.done(), checks.CheckDownstream)
	assert.Contains(t, f.Message, "after downstream-503-after the intent caused 3 effects")
	assert.Contains(t, f.Message, "the ledger-db transfer was recorded once but the email message was sent 2 times")
}

// Over stdio every session is a server process of its own: keys kept in
// the process's memory are lost to the next session, and the finding
// says to keep them durably, not "for the whole server, whatever the
// session", which the server already does.
func TestSessionsThatAreProcessesBlameTheProcessMemory(t *testing.T) {
	for _, processes := range []bool{true, false} {
		b := newRec()
		b.rec.Target.Capabilities = &record.Capabilities{Keys: true, EffectField: true, DryRun: true, SessionProcess: processes}
		s := b.intent(plain, opCharge)
		b.try(s, inSession(ok(201, "created", "ord_1"), "session 1"), mine())
		b.try(s, inSession(ok(201, "noop", "ord_1"), "session 1"))
		i := b.intent(plain, opCharge)
		b.try(i, inSession(ok(201, "created", "ord_2"), "session 2"), mine())
		b.try(i, inSession(ok(201, "created", "ord_3"), "session 3"), mine())
		f := onlyFinding(t, b.done(), checks.CheckRetrySequential)
		if processes {
			assert.Contains(t, f.Message, "each a server process of its own, and the keys are kept in the process's memory: keep them in durable storage")
			assert.NotContains(t, f.Message, "whatever the session")
			continue
		}
		assert.Contains(t, f.Message, "the keys are kept per session; keep them for the whole server, whatever the session")
	}
}

// A burst over stdio sessions, each a server process, with no retry in
// another session to tell, names the process's memory beside the claim
// in two steps: one effect per process is what keys kept in each
// process's memory make too.
func TestABurstOverProcessesWithoutEvidenceNamesBoth(t *testing.T) {
	b := newRec()
	b.rec.Target.Capabilities = &record.Capabilities{Keys: true, EffectField: true, DryRun: true, SessionProcess: true}
	i := b.intent(burstR, opCharge)
	b.burst(i, []record.Attempt{inSession(ok(201, "created", "ord_1"), "session 1"), inSession(ok(201, "created", "ord_2"), "session 2")}, mine(), mine())
	f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
	assert.Contains(t, f.Message, "either each session's server process keeps the keys in its memory (keep them in durable storage that every process of the server reads), or the key is checked and claimed in two steps (claim it atomically): the copies were sent at the same time to different sessions (session 1, session 2)")
}

// The target's own row written twice means the intent itself ran again:
// an email repeated without a key beside it is not the cause given, nor
// is a charge made once "under a key" evidence that the key was kept.
func TestRepeatedOwnRowIsNotExplainedByTheEmail(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameCrashAfterCommit, unknown(0)), rowed(), keyed("charge:idk-0001"), emailed(""))
	b.try(i, ok(201, "created", "ord_2"), rowed(), emailed(""))
	f := onlyFinding(t, b.done(), checks.CheckCrashRecovery)
	assert.Contains(t, f.Message, "the key and its reply are not written in the transaction that writes the effect")
	assert.NotContains(t, f.Message, "the email send was given no idempotency key")
}
