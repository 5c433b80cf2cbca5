package checks_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// smtp is an email message sent over SMTP for the intent it is recorded
// for, carrying key (a Message-ID, an X-Idempotency-Key header) as the
// fake records it.
func smtp(key string) fakes.Effect {
	return fakes.Effect{Fake: "email", Kind: "message", Key: key, Detail: map[string]string{"via": "smtp"}}
}

// A message repeated over SMTP is not explained by the key it carried:
// SMTP de-duplicates nothing, so neither "a new key on each try" (a
// Message-ID is new for every message) nor "the key store did not
// survive" nor "the downstream did not de-duplicate it" is the cause.
func TestAMessageRepeatedOverSMTPIsNotBlamedOnItsKey(t *testing.T) {
	t.Run("sequential retry, the charge made once under a key", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, ok(201, "created", "ord_1"), keyed("charge:idk-0001"), smtp("<m1@tool>"))
		b.try(i, ok(201, "created", "ord_1"), smtp("<m2@tool>"))
		f := onlyFinding(t, b.done(), checks.CheckRetrySequential)
		assert.Contains(t, f.Message, emailCause+" 2 times over SMTP; SMTP carries no idempotency key and de-duplicates nothing")
		assert.Contains(t, f.Message, "a retry must skip a message recorded as sent under the request's key")
		assert.NotContains(t, f.Message, "new idempotency key")
		assert.NotContains(t, f.Message, "pass it a key")
	})
	t.Run("crash after the message, the same key each time", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameCrashAfterEffect, unknown(0)), smtp("rcpt-1")).try(i, ok(201, "created", "ord_1"), smtp("rcpt-1"))
		f := onlyFinding(t, b.done(), checks.CheckCrashRecovery)
		assert.Contains(t, f.Message, "the email message was sent 2 times over SMTP: SMTP carries no idempotency key")
		assert.NotContains(t, f.Message, "key store did not survive")
	})
	t.Run("downstream reset after the message, the same key each time", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDownstreamResetAfter, unknown(502)), smtp("rcpt-1")).try(i, ok(201, "created", "ord_1"), smtp("rcpt-1"))
		f := onlyFinding(t, b.done(), checks.CheckDownstream)
		assert.Contains(t, f.Message, "the email message was sent 2 times over SMTP: SMTP carries no idempotency key")
		assert.NotContains(t, f.Message, "did not de-duplicate it")
	})
	t.Run("over the HTTP API a repeated key is still the downstream's", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDownstreamResetAfter, unknown(502)), emailed("rcpt-1")).try(i, ok(201, "created", "ord_1"), emailed("rcpt-1"))
		f := onlyFinding(t, b.done(), checks.CheckDownstream)
		assert.Contains(t, f.Message, "the downstream was given the same key (rcpt-1) but did not de-duplicate it")
		assert.NotContains(t, f.Message, "SMTP")
	})
}

// Attempts served by instances that keep their keys apart explain a
// duplicate whatever fault came first: a stalled database's attempt on
// one instance and its retry on another is not a lease too short.
func TestADependencyFaultsDuplicateAcrossInstancesBlamesTheInstances(t *testing.T) {
	for _, tc := range []struct {
		name  string
		retry string // the instance that served the retry
		// store is what a sequential retry on another instance showed:
		// "apart" (it acted again), "shared" (it replayed), "" (none ran).
		store string
		// late: the stalled attempt's statement landed during the
		// retry, so both effects fall in the retry's time, as they do
		// on a real database.
		late      bool
		want, not string
	}{
		{"another instance, a store per instance shown", "instance 2", "apart", false, "served by different instances (instance 1, instance 2), and each keeps its own keys", "in-progress lease"},
		{"another instance, the held statement landed during the retry", "instance 2", "apart", true, "served by different instances (instance 1, instance 2), and each keeps its own keys: one store per instance; keep the keys in a store every instance shares (the first attempt's statements, held by the stalled database, landed after the retry had begun)", "in-progress lease"},
		{"the held statement landed during the retry, nothing shown of the store", "instance 2", "", true, "the key's lifetime (its in-progress lease) is shorter than a stalled request", "one store per instance"},
		{"another instance, a shared store shown", "instance 2", "shared", false, "the key's lifetime (its in-progress lease) is shorter than a stalled request", "one store per instance"},
		{"another instance, nothing shown of the store", "instance 2", "", false, "the key's lifetime (its in-progress lease) is shorter than a stalled request", "one store per instance"},
		{"the same instance", "instance 1", "apart", false, "the key's lifetime (its in-progress lease) is shorter than a stalled request", "instances"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			if tc.store != "" {
				s := b.intent(plain, opCharge)
				b.try(s, onInstance(ok(201, "created", "ord_8"), "instance 1"), mine())
				if tc.store == "apart" {
					b.try(s, onInstance(ok(201, "created", "ord_9"), "instance 2"), mine())
				} else {
					b.try(s, onInstance(ok(201, "noop", "ord_8"), "instance 2"))
				}
			}
			i := b.intent(plain, opCharge)
			if tc.late {
				b.try(i, onInstance(under(faults.NameDepStall, unknown(0)), "instance 1")).try(i, onInstance(ok(201, "created", "ord_2"), tc.retry), mine(), mine())
			} else {
				b.try(i, onInstance(under(faults.NameDepStall, unknown(0)), "instance 1"), mine()).try(i, onInstance(ok(201, "created", "ord_2"), tc.retry), mine())
			}
			f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
			assert.Contains(t, f.Message, tc.want)
			assert.NotContains(t, f.Message, tc.not)
		})
	}
}

// A message repeated over SMTP beside a call repeated without a key gets
// the advice for both: the key for the call, the record for the message.
func TestSMTPAndAnUnkeyedCallRepeatedGetBothAdvices(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	hook := func() fakes.Effect { return fakes.Effect{Fake: "webhooks", Kind: "delivery"} }
	b.try(i, ok(201, "created", "ord_1"), keyed("charge:idk-0001"), smtp("<m1@tool>"), hook())
	b.try(i, ok(201, "created", "ord_1"), smtp("<m2@tool>"), hook())
	f := onlyFinding(t, b.done(), checks.CheckRetrySequential)
	assert.Contains(t, f.Message, "pass it a key derived from the request's key, and for the messages: SMTP carries no idempotency key")
}

// A reused key with another payload executed by an instance that never
// saw the key says so, when the retries show each instance keeps keys of
// its own; without that evidence, or on the instance that answered the
// key first, the finding stays as it was.
func TestAMismatchExecutedByAnotherInstanceSaysItNeverSawTheKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		// apart: a sequential retry on another instance acted again.
		apart    bool
		executor string
		want     bool
	}{
		{"per-instance store shown, another instance", true, "instance 2", true},
		{"per-instance store shown, the same instance", true, "instance 1", false},
		{"no evidence of the store", false, "instance 2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			s := b.intent(plain, opCharge)
			b.try(s, onInstance(ok(201, "created", "ord_1"), "instance 1"), mine())
			if tc.apart {
				b.try(s, onInstance(ok(201, "created", "ord_2"), "instance 2"), mine())
			} else {
				b.try(s, onInstance(ok(201, "noop", "ord_1"), "instance 1"))
			}
			o := b.intent(plain, opCharge)
			b.try(o, onInstance(ok(201, "created", "ord_3"), "instance 1"), mine())
			b.try(b.intent(mismatch, opCharge, o), onInstance(ok(201, "created", "ord_4"), tc.executor), mine())
			fs := findingsOf(t, b.done(), checks.CheckKeyMismatch)
			if assert.Len(t, fs, 1) {
				assert.Contains(t, fs[0].Message, "was executed (charge")
				if tc.want {
					assert.Contains(t, fs[0].Message, "the key was first answered by instance 1 and the other payload executed by instance 2, which never saw the key: each instance keeps keys of its own")
				} else {
					assert.NotContains(t, fs[0].Message, "never saw the key")
				}
			}
		})
	}
	t.Run("executed by both instances", func(t *testing.T) {
		b := newRec()
		s := b.intent(plain, opCharge)
		b.try(s, onInstance(ok(201, "created", "ord_1"), "instance 1"), mine())
		b.try(s, onInstance(ok(201, "created", "ord_2"), "instance 2"), mine())
		o := b.intent(plain, opCharge)
		b.try(o, onInstance(ok(201, "created", "ord_3"), "instance 1"), mine())
		m := b.intent(mismatch, opCharge, o)
		b.try(m, onInstance(unknown(0), "instance 2"), mine()).try(m, onInstance(ok(201, "created", "ord_5"), "instance 1"), mine())
		fs := findingsOf(t, b.done(), checks.CheckKeyMismatch)
		if assert.Len(t, fs, 1) {
			assert.NotContains(t, fs[0].Message, "never saw the key", "the instance that held the key executed it too")
		}
	})
}

// A queue consumer's duplicate, counted in its own rows, is told as the
// broker's redelivery of an event that nothing recorded as processed, not
// as a key store, a lease or a key passed downstream.
func TestAConsumersOwnRowsWrittenAgainSayWhatTheEventLacked(t *testing.T) {
	row := func() fakes.Effect { return fakes.Effect{Fake: "ledger-db", Kind: "ledger-row", Observed: true} }
	for _, tc := range []struct {
		name, fault, check string
		first              func() record.Attempt
		want, not          string
	}{
		{"a commit's answer lost", faults.NameDepResetAfterCommit, checks.CheckDependencyRecovery,
			func() record.Attempt { return under(faults.NameDepResetAfterCommit, ok(0, "", "")) },
			"record the event id as processed in the transaction that writes the effect", "the key and its reply"},
		{"a stalled database", faults.NameDepStall, checks.CheckDependencyRecovery,
			func() record.Attempt { return under(faults.NameDepStall, unknown(0)) },
			"the broker delivered the event again while the first delivery's statements were held by the stalled database", "in-progress lease"},
		{"killed after its commit", faults.NameCrashAfterCommit, checks.CheckCrashRecovery,
			func() record.Attempt { return under(faults.NameCrashAfterCommit, unknown(0)) },
			"record the event id as processed in the transaction that writes the effect", "the key and its reply"},
		{"a lost ack", "broker-lost-ack", checks.CheckConsumerRedelivery,
			func() record.Attempt {
				return redelivered("broker-lost-ack", "delivered #1, ack-dropped #1, delivered #2, acked #2", ok(0, "", ""))
			},
			"its own ledger-db ledger-row was written 2 times: nothing in what it writes is unique to the intent", "idempotency key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := consumerRec()
			i := b.intent(plain, opCharge)
			if tc.check == checks.CheckConsumerRedelivery {
				b.try(i, tc.first(), row(), row())
			} else {
				b.try(i, tc.first(), row()).try(i, ok(0, "", ""), row())
			}
			f := onlyFinding(t, b.done(), tc.check)
			assert.Contains(t, f.Message, tc.want)
			assert.NotContains(t, f.Message, tc.not)
		})
	}
}

// A queue consumer's findings speak of events published again, not of a
// caller's key and its requests.
func TestAConsumersFindingsSpeakOfEvents(t *testing.T) {
	caps := record.DefaultCapabilities()
	caps.Redelivery, caps.EventKeys, caps.Keys = true, true, false
	b := newRec()
	b.rec.Target.Capabilities = &caps
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "created", "ord_2"), mine())
	f := onlyFinding(t, b.done(), checks.CheckRetrySequential)
	assert.Contains(t, f.Message, "the same event published 2 times caused 2 effects")
	assert.Contains(t, f.Message, "the consumer did not recognise the event id as processed")
	assert.NotContains(t, f.Message, "key")

	rec := lateRecord(16, []int{1}, 0, func(int, time.Duration) bool { return true })
	rec.Target.Capabilities = &caps
	late := onlyFinding(t, rec, checks.CheckRetryLate)
	assert.Contains(t, late.Message, "the same event published again after 1 other event")
	assert.Contains(t, late.Message, "the consumer forgot the event id")
	assert.Contains(t, late.Message, "Keep every processed event id")
	assert.NotContains(t, late.Message, "key store")

	d := newRec()
	d.rec.Target.Capabilities = &caps
	j := d.intent(plain, opCharge)
	d.try(j, under(faults.NameDepResetAfterCommit, unknown(500)), mine()).try(j, ok(201, "created", "ord_2"), mine())
	dep := onlyFinding(t, d.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, dep.Message, "after dep-reset-after-commit, delivering the event again caused 2 effects")
	assert.NotContains(t, dep.Message, "same key")
}

// A duplicate after a fault that makes no effect of its own (a database
// error) is not the fault's when a retry one at a time, with no fault,
// acted again too: the key is not honoured at all.
func TestADependencyErrorsDuplicateOfATargetThatIgnoresKeys(t *testing.T) {
	for _, ignores := range []bool{true, false} {
		b := newRec()
		if ignores {
			s := b.intent(plain, opCharge)
			b.try(s, ok(201, "created", "ord_8"), mine()).try(s, ok(201, "created", "ord_9"), mine())
		}
		i := b.intent(plain, opCharge)
		b.try(i, under(faults.NameDepError, ok(201, "created", "ord_1")), mine()).try(i, ok(201, "created", "ord_2"), mine())
		f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
		if ignores {
			assert.Contains(t, f.Message, "the key is not honoured at all")
			assert.NotContains(t, f.Message, "the failed attempt's effect")
		} else {
			assert.Contains(t, f.Message, "the failed attempt's effect was not seen by the retry")
		}
	}
}

// Why no dependency fault was tried says which of the two it was: no
// dependency declared, or the run's faults left them out.
func TestNoDependencyFaultTriedSaysWhy(t *testing.T) {
	for _, declared := range []bool{false, true} {
		rec := sequentialOK()
		if declared {
			rec.Dependencies = []string{"db"}
		}
		checksOf, _ := verdicts(t, rec)
		note := checksOf[checks.CheckDependencyRecovery].Note
		if declared {
			assert.Equal(t, "no dependency fault was tried: the run's faults leave them out (the target declares db)", note)
		} else {
			assert.Equal(t, "no dependency fault was tried: the target declares no dependency (dependencies:)", note)
		}
	}
}

// A duplicate made while the first attempt was held by a stalled database
// is blamed on a claim in two steps when the operation's bursts made more
// than one effect too (the retry found no claim at all); with bursts that
// made one effect each (the claim is atomic) it is the claim's lifetime.
func TestAStalledDatabasesDuplicateBlamesTheClaimTheBurstsShowed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		raced     bool
		apart     bool // the copies went to instances that keep keys apart
		want, not string
	}{
		{"the bursts raced", true, false, "the key is not claimed before the work begins (same-key requests released together made more than one effect too: it is checked and claimed in two steps)", "in-progress lease"},
		{"the bursts held", false, false, "the key's lifetime (its in-progress lease) is shorter than a stalled request", "two steps"},
		{"the bursts duplicated over instances that keep keys apart", true, true, "the key's lifetime (its in-progress lease) is shorter than a stalled request", "two steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			copies := []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_1")}
			if tc.apart {
				s := b.intent(plain, opCharge)
				b.try(s, onInstance(ok(201, "created", "ord_8"), "instance 1"), mine()).try(s, onInstance(ok(201, "created", "ord_9"), "instance 2"), mine())
				copies[0], copies[1] = onInstance(copies[0], "instance 1"), onInstance(copies[1], "instance 2")
			}
			bu := b.intent(burstR, opCharge)
			if tc.raced {
				b.burst(bu, copies, mine(), mine())
			} else {
				copies[1] = ok(201, "noop", "ord_1")
				b.burst(bu, copies, mine())
			}
			i := b.intent(plain, opCharge)
			b.try(i, under(faults.NameDepStall, unknown(0)), mine()).try(i, ok(201, "created", "ord_2"), mine())
			f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
			assert.Contains(t, f.Message, tc.want)
			assert.NotContains(t, f.Message, tc.not)
		})
	}
}

// Two rows written within the one attempt whose database connection was
// reset after its commit were written again by the target itself (its
// database client's retry), not by a retry of idemcheck's: the finding
// says so, and does not speak of retrying. Written by two attempts, they
// are the retry's.
func TestAWriteRepeatedWithinTheResetAttemptIsTheTargets(t *testing.T) {
	row := func() fakes.Effect { return fakes.Effect{Fake: "db", Kind: "row", Observed: true} }
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameDepResetAfterCommit, ok(201, "created", "ord_1")), row(), row())
	f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, f.Message, "after dep-reset-after-commit, its one attempt caused 2 effects")
	assert.Contains(t, f.Message, "two of them were made within one attempt (attempt 1), the second after the database connection was reset once the first write had committed: the target wrote again itself")
	assert.NotContains(t, f.Message, "retrying with the same key")

	b = newRec()
	i = b.intent(plain, opCharge)
	b.try(i, under(faults.NameDepResetAfterCommit, unknown(503)), row()).try(i, ok(201, "created", "ord_2"), row())
	f = onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, f.Message, "retrying with the same key caused 2 effects")
	assert.Contains(t, f.Message, "the retry did not find the key")
	assert.NotContains(t, f.Message, "within one attempt")

	// A consumer's attempt lasts until its event is acknowledged: the
	// broker's redelivery after a nack falls within it, and is what
	// acted again.
	b = consumerRec()
	i = b.intent(plain, opCharge)
	b.try(i, redeliveredUnder(faults.NameDepResetAfterCommit, "delivered #1, nacked #1, delivered #2, acked #2", ok(200, "", "")), row(), row())
	f = onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, f.Message, "its redelivery was not recognised as processed")
	assert.NotContains(t, f.Message, "wrote again itself")

	// Delivered once, the consumer wrote again itself: its client sent
	// the write again on a new connection. No redelivery is named.
	b = consumerRec()
	i = b.intent(plain, opCharge)
	b.try(i, redeliveredUnder(faults.NameDepResetAfterCommit, "published, delivered (fetched), acked", ok(200, "", "")), row(), row())
	f = onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, f.Message, "the consumer, given the event once, wrote again itself")
	assert.Contains(t, f.Message, "claims the event id in the same statement")
	assert.NotContains(t, f.Message, "redelivery")
}

// redeliveredUnder is a consumer's attempt under the dependency fault
// name, with what the broker saw of its event.
func redeliveredUnder(name, broker string, a record.Attempt) record.Attempt {
	a = under(name, a)
	a.Broker = broker
	return a
}

// Copies of one request answered as different results were each acted on
// by the target, though its own record shows the intent once (the others
// overwritten): the claim in two steps is named first, and the charge
// made without a key beside it. Copies answered as one result leave the
// charge's missing key the cause.
func TestCopiesAnsweredAsDifferentResultsBlameTheClaim(t *testing.T) {
	charge := func() fakes.Effect { return fakes.Effect{Fake: "payments", Kind: "charge"} }
	order := fakes.Effect{Fake: "orders-file", Kind: "order", Observed: true}
	for _, tc := range []struct {
		name      string
		ids       []string
		want, not string
	}{
		{"different results", []string{"ord_1", "ord_2", "ord_3"}, "the key is checked and claimed in two steps; claim it atomically (the copies were answered as 3 different results: the target acted on more than one of them, though its own data shows the intent once); and the orders-file order was recorded once but the payments charge was made 3 times: the payments charge request was given no idempotency key", ""},
		{"one result", []string{"ord_1", "ord_1", "ord_1"}, "the orders-file order was recorded once but the payments charge was made 3 times: the payments charge request was given no idempotency key", "two steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			bu := b.intent(burstR, opCharge)
			var copies []record.Attempt
			for _, id := range tc.ids {
				copies = append(copies, ok(201, "created", id))
			}
			b.burst(bu, copies, charge(), charge(), charge(), order)
			f := onlyFinding(t, b.done(), checks.CheckConcurrentDuplicates)
			assert.Contains(t, f.Message, tc.want)
			if tc.not != "" {
				assert.NotContains(t, f.Message, tc.not)
			}
		})
	}
}

// A duplicate after dep-error whose failed attempt made nothing was made
// by two later retries: the finding names them, not an effect of the
// failed attempt that was never made. (Served by two instances, the
// second retry is itself a retry one at a time that another instance
// acted on again: the store per instance is named.)
func TestADuplicateMadeByRetriesAfterADependencyErrorNamesThem(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameDepError, unknown(503))).
		try(i, ok(201, "created", "ord_1"), mine()).
		try(i, under(faults.NameReset, unknown(0))).
		try(i, ok(201, "created", "ord_2"), mine())
	f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, f.Message, "the failed attempt made no effect: attempts 2 and 4, retries after it, each made one, so the key did not hold across the retries")
	assert.NotContains(t, f.Message, "the failed attempt's effect was not seen")
}
