package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// lateWhy names the late effect only when the intent's first effect
// since the attempt came after it ended (after the ledger was read at
// its end, or, by a fake, after its end) and before its next attempt,
// and says whether the attempt had its answer or timed out.
func TestLateWhy(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ok := func(before, after int64) record.Attempt {
		return record.Attempt{N: 1, LedgerBefore: before, LedgerAfter: after, End: t0, Reply: record.Reply{Outcome: record.OK}}
	}
	second := func(a record.Attempt, before, after int64) []record.Attempt {
		b := a
		b.N, b.LedgerBefore, b.LedgerAfter = 2, before, after
		return []record.Attempt{a, b}
	}
	timedOut, failed := ok(9, 9), ok(10, 10)
	timedOut.TimedOut, timedOut.Outcome = true, record.Info
	failed.Outcome, failed.Error = record.Fail, "connection refused"
	answered5xx := ok(11, 11)
	answered5xx.Outcome, answered5xx.Status = record.Fail, 503
	rec := &record.Record{Intents: []record.Intent{
		{ID: 1, Marker: "m1", Attempts: []record.Attempt{ok(0, 0)}},
		{ID: 2, Marker: "m2", Attempts: second(ok(1, 1), 1, 2)},
		{ID: 3, Marker: "m3", Attempts: []record.Attempt{ok(2, 3)}},
		{ID: 4, Marker: "m4", Attempts: []record.Attempt{ok(3, 3)}},
		{ID: 6, Marker: "m6", Attempts: []record.Attempt{ok(3, 4)}},
		{ID: 7, Marker: "m7", Attempts: []record.Attempt{ok(4, 5)}},
		{ID: 8, Marker: "m8", Attempts: []record.Attempt{ok(5, 6)}},
		{ID: 9, Marker: "m9", Attempts: second(ok(6, 6), 8, 8)},
		{ID: 10, Marker: "m10", Attempts: []record.Attempt{timedOut}},
		{ID: 11, Marker: "m11", Attempts: []record.Attempt{failed}},
		{ID: 12, Marker: "m12", Attempts: []record.Attempt{answered5xx}},
	}}
	effects := []fakes.Effect{
		{Seq: 1, Markers: []string{"m1"}},                                                  // after intent 1's only attempt
		{Seq: 2, Markers: []string{"m2"}},                                                  // during intent 2's second attempt
		{Seq: 3, Markers: []string{"m3"}},                                                  // during intent 3's attempt
		{Seq: 4, Fake: "payments", At: t0.Add(time.Millisecond), Markers: []string{"m6"}},  // by a fake, after the answer
		{Seq: 5, Fake: "orders-db", At: t0.Add(time.Millisecond), Markers: []string{"m7"}}, // by an observer, after the answer
		{Seq: 6, Fake: "payments", At: t0.Add(-time.Millisecond), Markers: []string{"m8"}}, // by a fake, before the answer
		{Seq: 7, Markers: []string{"m9"}},                                                  // after intent 9's first attempt, before its second
		{Seq: 10, Markers: []string{"m10"}},                                                // after the attempt timed out
		{Seq: 11, Markers: []string{"m11"}},                                                // after the attempt failed
		{Seq: 12, Markers: []string{"m12"}},                                                // after the target answered 503
	}
	why := lateWhy(rec, effects, map[string]fakes.Fake{"payments": nil})
	assert.Equal(t, unfiredLate, why(1, 1))
	assert.Empty(t, why(2, 1), "the effect came with the retry, which may have made it")
	assert.Empty(t, why(3, 1), "the effect came while the attempt ran")
	assert.Empty(t, why(4, 1), "no effect at all")
	assert.Empty(t, why(5, 1), "no such intent")
	assert.Empty(t, why(1, 2), "no such attempt")
	assert.Equal(t, unfiredLate, why(6, 1), "a fake's effect after the answer")
	assert.Empty(t, why(7, 1), "an observer reads effects after the answer")
	assert.Empty(t, why(8, 1), "a fake's effect before the answer")
	assert.Equal(t, unfiredLate, why(9, 1), "an effect between the attempt and the retry")
	assert.Equal(t, unfiredTimedOut, why(10, 1))
	assert.Empty(t, why(11, 1), "an attempt that failed without an answer says nothing of when the target acts")
	assert.Equal(t, unfiredLate, why(12, 1), "an answer of 503 is an answer")
}

// actedFor hands the target the fault's state to wait on only when the
// fault can act while the target works: armed at a fake's call, for an
// operation a fake has been seen take a call of.
func TestActedFor(t *testing.T) {
	fired := func() bool { return false }
	ledger := fakes.NewLedger()
	r := &runner{
		inst:   &Instance{Fakes: map[string]fakes.Fake{"payments": nil}},
		ledger: ledger,
		rec: &record.Record{Intents: []record.Intent{
			{ID: 1, Operation: "charge", Marker: "m1"},
			{ID: 2, Operation: "note", Marker: "m2"},
		}},
	}
	ledger.Record(fakes.Effect{Fake: "orders-db", Markers: []string{"m2"}}) // an observer's
	crash := &faults.Crash{Point: faults.AfterEffect}
	charge, note := &record.Intent{Operation: "charge", Marker: "m3"}, &record.Intent{Operation: "note", Marker: "m4"}
	assert.Nil(t, r.actedFor(charge, crash, &armed{fired: fired}), "no fake has taken a call of charge yet")
	ledger.Record(fakes.Effect{Fake: "payments", Markers: []string{"m1"}})
	assert.NotNil(t, r.actedFor(charge, crash, &armed{fired: fired}))
	assert.NotNil(t, r.actedFor(charge, &faults.DownstreamFailBefore{}, &armed{fired: fired}))
	assert.Nil(t, r.actedFor(note, crash, &armed{fired: fired}), "only an observer counts note's effects")
	assert.Nil(t, r.actedFor(charge, crash, &armed{}), "the armer cannot tell")
	assert.Nil(t, r.actedFor(charge, crash, &armed{fired: fired, point: &record.EffectPoint{Fake: "orders-db", N: 1}}),
		"armed at an effect an observer reads once the attempt is over")
	assert.Nil(t, r.actedFor(charge, &faults.Crash{Point: faults.AfterReply}, &armed{fired: fired}), "acts at the reply, not at a fake")
	assert.Nil(t, r.actedFor(charge, &faults.ClientDisconnect{}, &armed{fired: fired}), "acts at the exchange with the client")
	ledger.Record(fakes.Effect{Fake: "payments", Markers: []string{"m3"}})
	assert.Nil(t, r.actedFor(charge, crash, &armed{fired: fired}), "acted on before: a duplicate may make no call")
}

// A downstream fault that never acted because the target calls none of
// the declared fakes in the whole run is unsupported, as if no fake were
// declared, with how to fix the configuration; once a fake recorded an
// effect, it is unfired, as before. A fault that does not act at the
// fakes is never concerned.
func TestFakesUnusedMakesDownstreamFaultsUnsupported(t *testing.T) {
	downstream := func(name string) bool { return name == faults.NameDownstreamFailBefore }
	rec := func() *record.Record {
		return &record.Record{Intents: []record.Intent{{ID: 1, Operation: "create", Attempts: []record.Attempt{
			{N: 1, Fault: faults.NameDownstreamFailBefore, FaultClass: string(faults.ClassDownstream), NotFired: true}, {N: 2}}}}}
	}
	fks := map[string]fakes.Fake{"payments": nil}
	none := func(int, int) string { return "" }

	unused := rec()
	noteUnfired(unused, none, fakesUnused([]fakes.Effect{{Seq: 1, Fake: "orders", Markers: []string{"m"}}}, fks, downstream))
	if assert.Len(t, unused.Unexamined, 1) {
		u := unused.Unexamined[0]
		assert.Equal(t, record.CauseUnsupported, u.Cause, "an observer's effect is not a call to a fake")
		assert.Contains(t, u.Reason, "made no call to the payments fake in the whole run")
		assert.Contains(t, u.Reason, "{{fakes.payments.url}}")
	}

	used := rec()
	noteUnfired(used, none, fakesUnused([]fakes.Effect{{Seq: 1, Fake: "payments", Markers: []string{"m"}}}, fks, downstream))
	if assert.Len(t, used.Unexamined, 1) {
		assert.Equal(t, record.CauseUnfired, used.Unexamined[0].Cause)
	}

	assert.Empty(t, fakesUnused(nil, fks, downstream)(faults.NameReset), "a proxy fault does not act at the fakes")
	assert.Empty(t, fakesUnused(nil, nil, downstream)(faults.NameDownstreamFailBefore), "no fake declared: said before the run")
}
