package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// newArmedTwoFakes is newArmed with a payments and an email fake, the
// fault armed at pt.
func newArmedTwoFakes(pt *record.EffectPoint) (*armed, *ruleFake, *ruleFake, *int) {
	pay, mail := &ruleFake{}, &ruleFake{}
	kills := 0
	ctx := context.Background()
	return &armed{ctx: ctx, run: ctx, call: &record.Call{Marker: "idem-1"}, fakes: map[string]fakes.Fake{"payments": pay, "email": mail},
		ledger: fakes.NewLedger(), kill: func() { kills++ }, point: pt}, pay, mail, &kills
}

// TestArmedAtAPoint: a fault armed at an effect point is armed in that
// point's fake alone, past the calls to it before that one; a crash after
// the effect kills at that point's effect, not at an earlier one.
func TestArmedAtAPoint(t *testing.T) {
	t.Run("a downstream fault at the email", func(t *testing.T) {
		a, pay, mail, _ := newArmedTwoFakes(&record.EffectPoint{Index: 2, Fake: "email", N: 1})
		undo := armerOf(builtin(t, faults.NameDownstreamResetAfter)).arm(a)
		assert.Empty(t, pay.rules, "the charge goes through")
		require.Len(t, mail.rules, 1)
		assert.Zero(t, mail.rules[0].Skip)
		undo()
		assert.Equal(t, []string{"idem-1"}, mail.disarmed)
	})
	t.Run("a crash before the second charge", func(t *testing.T) {
		a, pay, _, _ := newArmedTwoFakes(&record.EffectPoint{Index: 2, Fake: "payments", N: 2})
		defer armerOf(builtin(t, faults.NameCrashBeforeEffect)).arm(a)()
		require.Len(t, pay.rules, 1)
		assert.Equal(t, 1, pay.rules[0].Skip, "the first charge is let through")
	})
	t.Run("a crash after the email's effect", func(t *testing.T) {
		a, _, _, kills := newArmedTwoFakes(&record.EffectPoint{Index: 2, Fake: "email", N: 1})
		defer armerOf(builtin(t, faults.NameCrashAfterEffect)).arm(a)()
		a.ledger.Record(fakes.Effect{Fake: "payments", Kind: "charge", Markers: []string{"idem-1"}})
		assert.Zero(t, *kills, "the charge is not the point")
		a.ledger.Record(fakes.Effect{Fake: "email", Kind: "message", Markers: []string{"idem-1"}})
		assert.Equal(t, 1, *kills)
	})
	t.Run("without a point, the first call, in every fake", func(t *testing.T) {
		a, pay, mail, kills := newArmedTwoFakes(nil)
		defer armerOf(builtin(t, faults.NameDownstreamFailAfter)).arm(a)()
		assert.Len(t, pay.rules, 1)
		assert.Len(t, mail.rules, 1)
		b, _, _, _ := newArmedTwoFakes(nil)
		b.kill = a.kill
		defer armerOf(builtin(t, faults.NameCrashAfterEffect)).arm(b)()
		b.ledger.Record(fakes.Effect{Fake: "payments", Kind: "charge", Markers: []string{"idem-1"}})
		assert.Equal(t, 1, *kills)
	})
}

// TestEffectPointsFromACleanRun: the points are read from the first clean
// intent of the operation, in ledger order, each numbered within its
// fake; a probe is repeated at each later point, up to maxPoints, and an
// operation with one call gets no more probes.
func TestEffectPointsFromACleanRun(t *testing.T) {
	ledger := fakes.NewLedger()
	r := &runner{ledger: ledger, rec: &record.Record{}}
	add := func(op, marker string, fks ...string) {
		before := ledger.LastSeq()
		for _, fk := range fks {
			ledger.Record(fakes.Effect{Fake: fk, Markers: []string{marker}})
		}
		r.rec.Intents = append(r.rec.Intents, record.Intent{Operation: op, Marker: marker,
			Attempts: []record.Attempt{{Reply: record.Reply{Outcome: record.OK}, LedgerBefore: before, LedgerAfter: ledger.LastSeq()}}})
	}
	add("one-call", "idem-a", "payments")
	add("many", "idem-b", "payments", "email", "payments", "webhooks", "email")
	assert.Nil(t, r.effectPoints("one-call"))
	ps := r.effectPoints("many")
	require.Len(t, ps, 5)
	assert.Equal(t, record.EffectPoint{Index: 3, Fake: "payments", N: 2}, ps[2])
	assert.Equal(t, "payments #2", ps[2].String())

	probe := func(op, fault string) checks.Probe {
		s := checks.Fresh(record.RolePlain, op)
		s.Fault, s.UntilOK = builtin(t, fault), true
		return checks.Probe{Name: "retry after " + fault, Steps: []checks.Step{s}}
	}
	later := r.laterPoints(probe("many", faults.NameCrashAfterEffect))
	require.Len(t, later, maxPoints-1, "bounded")
	assert.Equal(t, "retry after crash-after-effect at email", later[0].Name)
	assert.Equal(t, &ps[1], later[0].Steps[0].Point)
	assert.Equal(t, &ps[0], r.atFirstPoint(probe("many", faults.NameCrashAfterEffect)).Steps[0].Point)
	assert.Empty(t, r.laterPoints(probe("one-call", faults.NameCrashAfterEffect)), "one call, no more probes")
	assert.Empty(t, r.laterPoints(probe("many", faults.NameCrashAfterReply)), "a crash after the reply acts at no call")
	assert.Empty(t, r.laterPoints(probe("many", faults.NameLostResponse)))
}

// TestObservedEffectsAreNoPoints: a row an observer found in the target's
// own database is no downstream call a fault can act at: an operation
// that writes a row and sends one email has one point, hence none listed.
func TestObservedEffectsAreNoPoints(t *testing.T) {
	ledger := fakes.NewLedger()
	r := &runner{ledger: ledger, rec: &record.Record{}}
	before := ledger.LastSeq()
	ledger.Record(fakes.Effect{Fake: "email", Markers: []string{"idem-a"}})
	ledger.Record(fakes.Effect{Fake: "ledger-db", Markers: []string{"idem-a"}, Observed: true})
	r.rec.Intents = append(r.rec.Intents, record.Intent{Operation: "transfer", Marker: "idem-a",
		Attempts: []record.Attempt{{Reply: record.Reply{Outcome: record.OK}, LedgerBefore: before, LedgerAfter: ledger.LastSeq()}}})
	assert.Nil(t, r.effectPoints("transfer"))
	assert.Empty(t, r.rec.EffectPoints)
}
