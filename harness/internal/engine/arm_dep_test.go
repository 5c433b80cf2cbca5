package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// ctlProxy is a dependency's proxy that has only its control: an armer
// arms and disarms rules there, and the test fires them.
type ctlProxy struct {
	deps.Proxy
	c *deps.Control
}

func (p ctlProxy) Control() *deps.Control { return p.c }

// TestDepArmSaysWhetherItFired: a dependency fault, and a crash at a
// commit, armed for an attempt say once undone whether their rule acted
// in the proxy; one that never acted gives the reason by how the proxy
// attributes statements: the intent's marker was never seen (and what to
// change), or nothing came while the attempt ran alone. The reason is
// what the run lists as not examined.
func TestDepArmSaysWhetherItFired(t *testing.T) {
	for _, name := range []string{faults.NameDepError, faults.NameDepResetAfterCommit, faults.NameDepStall, faults.NameCrashBeforeCommit, faults.NameCrashAfterCommit} {
		for _, inFlight := range []bool{false, true} {
			for _, fire := range []bool{false, true} {
				a, _, _ := newArmed(t)
				p := ctlProxy{c: deps.NewControl(nil)}
				a.deps = map[string]deps.Proxy{"db": p}
				a.settleLater = func(func(context.Context)) {} // a stall that fired leaves a wait
				if inFlight {
					a.depsInFlight = a.deps
				}
				f := builtin(t, name)
				action := deps.ResetAfterCommit
				switch x := f.(type) {
				case faults.DependencyFault:
					action = x.DepRule("idem-1").Action
				case faults.CrashFault:
					if x.CrashPoint() == faults.BeforeCommit {
						action = deps.BeforeCommit
					}
				}
				undo := armerOf(f).arm(a)
				require.NotNil(t, a.fired, name)
				require.True(t, p.c.Rules().Has([]string{"idem-1"}, action), name)
				if fire {
					_, _, took := p.c.Rules().Take([]string{"idem-1"}, action)
					require.True(t, took, name)
				}
				undo()
				assert.Equal(t, fire, a.fired(), "%s (in flight %v)", name, inFlight)
				want := unfiredByMarker
				if inFlight {
					want = unfiredInFlight
				}
				assert.Equal(t, want, a.unfiredWhy, name)
			}
		}
	}

	rec := &record.Record{Intents: []record.Intent{{ID: 3, Operation: "pay", Attempts: []record.Attempt{
		{N: 1, Fault: faults.NameDepError, FaultClass: string(faults.ClassDependency), NotFired: true}, {N: 2}}}}}
	f := &depFlight{}
	f.noteUnfired(3, 1, unfiredByMarker)
	noteUnfired(rec, f.unfiredWhy, func(string) string { return "" })
	require.Len(t, rec.Unexamined, 1)
	assert.Equal(t, record.Unexamined{Check: "dependency.recovery", Operation: "pay", Fault: faults.NameDepError,
		Cause: record.CauseUnfired, Reason: unfiredByMarker}, rec.Unexamined[0])
}

// TestAFaultThatFoundNoStatementOfAnIntentThatNeverReachedTheDatabase: a
// dependency fault that did not act on an intent whose every attempt
// failed with nothing made, while another intent's dependency fault did
// act, is not blamed on a marker missing from the statements: the target
// never reached the database with that intent. With no fault that acted
// elsewhere, or with an effect of the intent made, the marker may well be
// what is missing.
func TestAFaultThatFoundNoStatementOfAnIntentThatNeverReachedTheDatabase(t *testing.T) {
	dep := func(name string, notFired bool, status int, out record.Outcome) record.Attempt {
		return record.Attempt{Fault: name, FaultClass: string(faults.ClassDependency), NotFired: notFired,
			Reply: record.Reply{Status: status, Outcome: out}}
	}
	failed := record.Attempt{Reply: record.Reply{Status: 503, Outcome: record.Info}}
	stuck := record.Intent{ID: 2, Operation: "pay", Marker: "m2", Attempts: []record.Attempt{dep(faults.NameCrashBeforeCommit, true, 503, record.Info), failed, failed}}
	acted := record.Intent{ID: 1, Operation: "pay", Marker: "m1", Attempts: []record.Attempt{dep(faults.NameDepError, false, 503, record.Info), {Reply: record.Reply{Status: 201, Outcome: record.OK}}}}

	rec := &record.Record{Intents: []record.Intent{acted, stuck}}
	assert.Equal(t, "every attempt at this intent failed before the target wrote anything of it to the database (503 ×3), so the fault had no statement to act on; other dependency faults did see the statements of this operation's intents, so the marker is stored",
		markerSeenElsewhere(rec, nil, 2, unfiredByMarker))

	refused := acted
	refused.Attempts = []record.Attempt{dep(faults.NameDepRefuse, false, 503, record.Info)}
	assert.Equal(t, unfiredByMarker, markerSeenElsewhere(&record.Record{Intents: []record.Intent{refused, stuck}}, nil, 2, unfiredByMarker),
		"a refusal acts whatever the statements carry: it shows nothing of the marker")
	alone := &record.Record{Intents: []record.Intent{stuck}}
	assert.Equal(t, unfiredByMarker, markerSeenElsewhere(alone, nil, 2, unfiredByMarker), "no fault acted anywhere: the marker may be missing")
	made := []fakes.Effect{{Seq: 1, Markers: []string{"m2"}, Observed: true}}
	assert.Equal(t, unfiredByMarker, markerSeenElsewhere(rec, made, 2, unfiredByMarker), "its effect was made: it did reach the database")
}
