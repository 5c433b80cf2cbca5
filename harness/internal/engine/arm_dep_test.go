package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
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
