package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// redelivered is a under a redelivery fault named name, with what the
// broker saw of the event.
func redelivered(name, broker string, a record.Attempt) record.Attempt {
	a.Fault, a.FaultClass, a.Broker = name, string(faults.ClassRedelivery), broker
	return a
}

// consumerRec is a record of a queue consumer target.
func consumerRec() *recBuilder {
	b := newRec()
	b.rec.Target.Kind = "consumer"
	b.rec.Target.Capabilities = &record.Capabilities{Redelivery: true}
	return b
}

func consumerRedeliveryCases() []checkCase {
	return []checkCase{
		{
			why: "a lost ack redelivered and charged again (critical, with what the broker did); a slow consumer whose event was acknowledged without effect is exactly-once's (lost), with what the broker did",
			rec: func() *record.Record {
				b := consumerRec()
				i := b.intent(plain, opCharge)
				b.try(i, redelivered("broker-lost-ack", "delivered #1, ack-dropped #1, delivered #2, acked #2", ok(0, "", "")), mine(), mine())
				j := b.intent(plain, opCharge)
				b.try(j, redelivered("broker-slow-consumer", "delivered #1, delivered #2, acked #2", ok(0, "", "")))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckConsumerRedelivery: {critical}, checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{
				checks.CheckConsumerRedelivery: {
					"after broker-lost-ack the consumer caused 2 effects (charge ch_000001, charge ch_000002) for one event: it did not recognise the redelivered event id as processed (the downstream was given no idempotency key); what the broker did: attempt 1: delivered #1, ack-dropped #1, delivered #2, acked #2",
				},
				checks.CheckExactlyOnce: {
					"the intent was lost after broker-slow-consumer (attempts: ok (broker-slow-consumer)); what the broker did: attempt 1: delivered #1, delivered #2, acked #2",
				},
			},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery},
		},
		{
			why: "redelivered twice, charged once with the event id passed downstream",
			rec: func() *record.Record {
				b := consumerRec()
				i := b.intent(plain, opCharge)
				b.try(i, redelivered("broker-late-ack", "delivered #1, ack-held #1, delivered #2, acked #2", ok(0, "", "")), keyed("evt-1"))
				return b.done()
			}(),
			pass: []string{checks.CheckConsumerRedelivery, checks.CheckExactlyOnce},
		},
		{
			why:   "not a queue consumer: not applicable",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckConsumerRedelivery},
			notes: map[string]string{checks.CheckConsumerRedelivery: "not applicable to func targets"},
		},
	}
}

// A trial whose first step was published twice, and acted on twice,
// before a later step crashed the consumer: the crash.recovery finding
// that owns the intent says the duplicate came before the crash, from
// the copies the consumer did not recognise, not from a key store lost
// in the crash.
func TestADuplicateMadeBeforeTheCrashIsNotTheCrashs(t *testing.T) {
	b := consumerRec()
	i := b.intent(plain, opCharge)
	b.try(i, redelivered("broker-duplicate-publish", "published, delivered #1, acked #1, delivered #1, published, acked #1", ok(200, "", "")), mine(), mine()).
		try(i, under(faults.NameCrashAfterCommit, unknown(0)), mine())
	f := onlyFinding(t, b.done(), checks.CheckCrashRecovery)
	assert.Contains(t, f.Message, "attempt 1 (broker-duplicate-publish) made two of them on its own, before any crash: the broker gave the consumer the event more than once, and it acted on each copy")
	assert.NotContains(t, f.Message, "did not survive the crash")
}

// A trial's intent delivered out of order, then crashed after its
// commit and delivered again: the crash.recovery finding names the crash
// (not the reorder that came first) and what the consumer lacked.
func TestACrashRecoveryFindingNamesTheCrashNotAFaultBeforeIt(t *testing.T) {
	b := consumerRec()
	i := b.intent(plain, opCharge)
	b.try(i, redelivered("broker-reorder", "published, delivered #1, acked #1", ok(200, "", "")), mine()).
		try(i, under(faults.NameCrashAfterCommit, unknown(0)), mine())
	f := onlyFinding(t, b.done(), checks.CheckCrashRecovery)
	assert.Equal(t, faults.NameCrashAfterCommit, f.Fault)
	assert.Contains(t, f.Message, "after crash-after-commit and a restart")
	assert.Contains(t, f.Message, "its redelivery was not recognised as processed")
	assert.NotContains(t, f.Message, "broker-reorder and a restart")
}
