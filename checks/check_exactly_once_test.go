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

// at is a with its start and end at t (its end a millisecond later).
func at(a record.Attempt, t time.Time) record.Attempt {
	a.Start, a.End = t, t.Add(time.Millisecond)
	return a
}

// An intent whose first attempt never reached the target, whose key
// another payload then took (accepted, as a target without a fingerprint
// does), and whose retry was answered with that payload's result made no
// effect of its own: the reused key's acceptance is key.mismatch's
// finding, not a lost intent. An intent acknowledged with no effect
// before the other payload came was lost all the same.
func TestKeyTakenByAnotherPayloadIsNoLostIntent(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		// ackFirst acknowledges the intent, without an effect, before the
		// other payload comes.
		ackFirst bool
		lost     bool
	}{{"answered with the other payload's result", false, false}, {"lost before the other payload came", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			i := b.intent(plain, opCharge)
			if tc.ackFirst {
				b.try(i, at(ok(200, "created", "ord_1"), t0))
			} else {
				b.try(i, at(under(faults.NameUnavailableBefore, failed(503)), t0))
			}
			m := b.intent(mismatch, opCharge, i)
			b.try(m, at(ok(201, "created", "ord_2"), t0.Add(time.Second)), mine())
			b.try(i, at(ok(200, "noop", "ord_2"), t0.Add(2*time.Second)))
			_, found := verdicts(t, b.done())
			if tc.lost {
				assert.Len(t, found[checks.CheckExactlyOnce], 1)
				return
			}
			assert.Empty(t, found[checks.CheckExactlyOnce], describe(found[checks.CheckExactlyOnce]))
		})
	}
}

// key.distinct: an intent whose key another payload took before it was
// acknowledged caused nothing because of its key, not its payload: its
// twin (same inputs, a new key) rightly acted, and nothing was merged. A
// twin answered without an effect while no other payload took the key is
// still merged by payload.
func TestKeyTakenByAnotherPayloadIsNoMergeByPayload(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		taken bool
	}{{"the key taken by another payload", true}, {"nothing took the key", false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			i := b.intent(plain, opCharge)
			if tc.taken {
				b.try(i, at(under(faults.NameUnavailableBefore, failed(503)), t0))
				m := b.intent(mismatch, opCharge, i)
				b.try(m, at(ok(201, "created", "ord_2"), t0.Add(time.Second)), mine())
				b.try(i, at(ok(200, "noop", "ord_2"), t0.Add(2*time.Second)))
			} else {
				b.try(i, at(ok(200, "noop", "ord_2"), t0.Add(2*time.Second)))
			}
			tw := b.intent(twin, opCharge, i)
			b.try(tw, at(ok(201, "created", "ord_3"), t0.Add(3*time.Second)), mine())
			_, found := verdicts(t, b.done())
			if tc.taken {
				assert.Empty(t, found[checks.CheckKeyDistinct], describe(found[checks.CheckKeyDistinct]))
				return
			}
			assert.Len(t, found[checks.CheckKeyDistinct], 1)
		})
	}
}

// The same when the two went at once (a trial's joined steps): the intent
// waited on the key the other payload held, and was answered with its
// result; nothing was merged by payload.
func TestKeyTakenAtOnceByAnotherPayloadIsNoMergeByPayload(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := newRec()
	i := b.intent(plain, opCharge)
	m := b.intent(mismatch, opCharge, i)
	b.try(m, at(ok(201, "created", "ord_2"), t0.Add(time.Millisecond)), mine())
	b.try(i, at(ok(200, "noop", "ord_2"), t0))
	b.rec.Intent(i).Attempts[0].End = t0.Add(5 * time.Millisecond) // it waited for the other
	tw := b.intent(twin, opCharge, i)
	b.try(tw, at(ok(201, "created", "ord_3"), t0.Add(time.Second)), mine())
	_, found := verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckKeyDistinct], describe(found[checks.CheckKeyDistinct]))
}

// A target that leaves the marker off the calls its retries make (it
// answers noop, and charges again without the marker) cannot hide them:
// the effects that carry no marker at all, recorded while it handled a
// mutating call, are a major finding. Marked effects, and unmarked ones
// recorded outside its calls, are not.
func TestUnmarkedEffectsDuringCallsAreReported(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine())
	b.try(i, ok(200, "noop", "ord_1"), unmarked())
	b.try(i, ok(200, "noop", "ord_1"), unmarked())
	b.later(i, unmarked()) // after every call: not the target's doing, as far as anyone can tell
	_, found := verdicts(t, b.done())
	if assert.Len(t, found[checks.CheckExactlyOnce], 1) {
		f := found[checks.CheckExactlyOnce][0]
		assert.Equal(t, record.Major, f.Severity)
		assert.Contains(t, f.Message, "charge: 2 of the 4 effects the fakes recorded while the target handled its calls carried no marker (payments charge ×2), though the target's other effects of that kind carry their request's")
	}

	// An unmarked fee beside each marked charge comes with the call that
	// acts: no retry made one.
	fee := func() fakes.Effect { return fakes.Effect{Markers: []string{}} }
	b = newRec()
	i = b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine(), fee())
	b.try(i, ok(200, "noop", "ord_1"))
	_, found = verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckExactlyOnce], "a fee beside the marked charge")

	// The copies of a burst overlap the one that acted: its marked charge
	// excuses one unmarked charge, not the unmarked charges of the others.
	b = newRec()
	i = b.intent(plain, opCharge)
	b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(200, "noop", "ord_1"), ok(200, "noop", "ord_1"), ok(200, "noop", "ord_1")},
		mine(), unmarked(), unmarked(), unmarked())
	_, found = verdicts(t, b.done())
	if assert.Len(t, found[checks.CheckExactlyOnce], 1, "a burst's hidden charges") {
		assert.Contains(t, found[checks.CheckExactlyOnce][0].Message, "charge: 2 of the 4 effects")
	}

	// A kind the target never marks (a customer created beside the
	// charge) is how it calls that downstream, not a call it hid.
	customer := func() fakes.Effect { return fakes.Effect{Fake: "payments", Kind: "customer", Markers: []string{}} }
	b = newRec()
	i = b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine(), customer())
	b.try(i, ok(200, "noop", "ord_1"), customer())
	_, found = verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckExactlyOnce])

	b = newRec()
	i = b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine())
	b.try(i, ok(200, "noop", "ord_1"))
	b.later(i, unmarked())
	_, found = verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckExactlyOnce])
}

// A consumer's ack has no status: a lost event's finding says it was
// acknowledged, with no "(0)" that reads as an HTTP status.
func TestALostAckedEventShowsNoStatus(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	acked := ok(0, "", "")
	acked.Body = "acknowledged"
	b.try(i, acked)
	b.rec.Ledger = append(b.rec.Ledger, fakes.Effect{Seq: 99, Fake: "payments", Kind: "charge", Markers: []string{"someone else"}})
	f := onlyFinding(t, b.done(), checks.CheckExactlyOnce)
	assert.Contains(t, f.Message, "charge: acknowledged but no side effect was recorded: the intent was lost")
}

// A consumer's event acknowledged before its effect was recorded (the
// observer found nothing when the broker had the ack, and found the
// effect when read again later) was not lost, and is not called lost:
// exactly-once says that the ack came first, which a crash in between
// would turn into a loss. An effect recorded before the ack, or a later
// effect of a target that is not a consumer (a 202, then a job), is no
// finding.
func TestAConsumerThatAcknowledgesBeforeItsEffect(t *testing.T) {
	acked := func() record.Attempt {
		a := ok(0, "", "")
		a.Broker = "published, delivered #1, acked #1"
		return a
	}
	seen := fakes.Effect{Fake: "ledger-db", Kind: "row", Observed: true}
	t.Run("found only after the ack", func(t *testing.T) {
		b := consumerRec()
		first := b.intent(plain, opCharge)
		b.try(first, acked(), seen)
		i := b.intent(plain, opCharge)
		b.try(i, acked()).later(i, seen)
		f := onlyFinding(t, b.done(), checks.CheckExactlyOnce)
		assert.Equal(t, record.Major, f.Severity)
		assert.Contains(t, f.Message, "charge: acknowledged before its effect was recorded: when the broker had the ack, the observers, read then, found nothing, and row row_000002 came only later: no event was lost here")
		assert.Contains(t, f.Message, "give the observer a settle")
		assert.NotContains(t, f.Message, "lost after")
	})
	t.Run("recorded before the ack", func(t *testing.T) {
		b := consumerRec()
		first := b.intent(plain, opCharge)
		b.try(first, acked(), seen)
		i := b.intent(plain, opCharge)
		b.try(i, acked(), seen)
		_, found := verdicts(t, b.done())
		assert.Empty(t, found[checks.CheckExactlyOnce], describe(found[checks.CheckExactlyOnce]))
	})
	t.Run("not a consumer", func(t *testing.T) {
		b := newRec()
		first := b.intent(plain, opCharge)
		b.try(first, ok(202, "", "job_1"), mine())
		i := b.intent(plain, opCharge)
		b.try(i, ok(202, "", "job_2")).later(i, mine())
		_, found := verdicts(t, b.done())
		assert.Empty(t, found[checks.CheckExactlyOnce], describe(found[checks.CheckExactlyOnce]))
	})
}

// A consumer's event published under a new id with the same payload as
// one already processed, acknowledged first and then lost to a crash
// before its effect, was lost, not merged with the other: key.distinct
// does not blame a payload de-duplication the consumer does not have,
// and exactly-once names the loss and the crash.
func TestATwinLostToACrashAfterItsAckIsNotMerged(t *testing.T) {
	b := consumerRec()
	i := b.intent(plain, opCharge)
	a := ok(0, "", "")
	a.Broker = "published, delivered #1, acked #1"
	b.try(i, a, mine())
	tw := b.intent(twin, opCharge, i)
	c := under(faults.NameCrashBeforeCommit, ok(0, "", ""))
	c.Broker = "published, delivered #1, acked #1"
	b.try(tw, c)
	_, found := verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckKeyDistinct], describe(found[checks.CheckKeyDistinct]))
	if assert.Len(t, found[checks.CheckExactlyOnce], 1) {
		assert.Contains(t, found[checks.CheckExactlyOnce][0].Message, "the intent was lost after crash-before-commit")
	}
}
