package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// ruleFake is a fake that keeps the rules armed in it; the rest of
// fakes.Fake is not called by an armer.
type ruleFake struct {
	fakes.Fake
	rules    []fakes.Rule
	disarmed []string
}

func (f *ruleFake) Arm(r fakes.Rule)      { f.rules = append(f.rules, r) }
func (f *ruleFake) DisarmMarker(m string) { f.disarmed = append(f.disarmed, m) }

// newArmed is an attempt at the intent marked "idem-1", in one fake,
// whose kill counts the kills.
func newArmed(t *testing.T) (*armed, *ruleFake, *int) {
	t.Helper()
	fk := &ruleFake{}
	kills := 0
	ctx := context.Background()
	return &armed{ctx: ctx, run: ctx, call: &record.Call{Marker: "idem-1"}, fakes: map[string]fakes.Fake{"payments": fk},
		ledger: fakes.NewLedger(), kill: func() { kills++ }}, fk, &kills
}

func builtin(t *testing.T, name string) faults.Fault {
	t.Helper()
	f, err := faults.Builtin().New(name, nil)
	require.NoError(t, err)
	return f
}

// TestArmerOfEveryBuiltinFault: the faults the harness acts around have
// an armer, found by their ability; those the proxy or the client inject
// alone have none, and nothing needs a fake that an armer does not arm.
func TestArmerOfEveryBuiltinFault(t *testing.T) {
	armedBy := map[string]string{
		faults.NameClientDisconnect:       "disconnect",
		faults.NameCrashBeforeEffect:      "crash",
		faults.NameCrashAfterEffect:       "crash",
		faults.NameCrashAfterReply:        "crash",
		faults.NameDownstreamFailBefore:   "downstream",
		faults.NameDownstreamFailAfter:    "downstream",
		faults.NameDownstreamResetAfter:   "downstream",
		faults.NameDownstreamTimeoutAfter: "downstream",
		faults.NameDepError:               "dependency",
		faults.NameDepResetAfterCommit:    "dependency",
		faults.NameDepStall:               "dependency",
		faults.NameDepRefuse:              "dependency",
		faults.NameCrashBeforeCommit:      "commit crash",
		faults.NameCrashAfterCommit:       "commit crash",
	}
	for _, name := range faults.Builtin().Names() {
		a := armerOf(builtin(t, name))
		switch armedBy[name] {
		case "disconnect":
			assert.IsType(t, disconnectArm{}, a, name)
		case "crash":
			assert.IsType(t, crashArm{}, a, name)
		case "downstream":
			assert.IsType(t, downstreamArm{}, a, name)
		case "dependency":
			assert.IsType(t, depArm{}, a, name)
		case "commit crash":
			assert.IsType(t, depCrashArm{}, a, name)
		default:
			assert.Nil(t, a, "%s acts in the proxy or the client alone", name)
		}
		fakeBound := armedBy[name] != "" && name != faults.NameCrashAfterReply && armedBy[name] != "dependency" && armedBy[name] != "commit crash"
		assert.Equal(t, fakeBound, needsFake(builtin(t, name)), name)
	}
	assert.Nil(t, armerOf(nil), "no fault, nothing to arm")
}

// TestDownstreamArm: the fault's rule, for the call's marker, in every
// fake, removed once the attempt is over.
func TestDownstreamArm(t *testing.T) {
	a, fk, _ := newArmed(t)
	undo := armerOf(builtin(t, faults.NameDownstreamFailAfter)).arm(a)
	require.Len(t, fk.rules, 1)
	assert.Equal(t, fakes.FailAfter, fk.rules[0].Action)
	assert.Equal(t, "idem-1", fk.rules[0].Marker)
	assert.Empty(t, fk.disarmed)
	undo()
	assert.Equal(t, []string{"idem-1"}, fk.disarmed)
}

// TestCrashArm: each crash point kills at its event, and only then.
func TestCrashArm(t *testing.T) {
	t.Run("before the effect: when the fake sees the downstream call", func(t *testing.T) {
		a, fk, kills := newArmed(t)
		undo := armerOf(builtin(t, faults.NameCrashBeforeEffect)).arm(a)
		require.Len(t, fk.rules, 1)
		assert.Equal(t, fakes.FailBefore, fk.rules[0].Action)
		assert.Zero(t, *kills, "armed, not yet fired")
		fk.rules[0].OnMatch()
		assert.Equal(t, 1, *kills)
		undo()
		assert.Equal(t, []string{"idem-1"}, fk.disarmed)
	})
	t.Run("after the effect: when the ledger records one of the intent's", func(t *testing.T) {
		a, fk, kills := newArmed(t)
		undo := armerOf(builtin(t, faults.NameCrashAfterEffect)).arm(a)
		assert.Empty(t, fk.rules, "no rule: the ledger tells")
		a.ledger.Record(fakes.Effect{Kind: "charge", Markers: []string{"idem-2"}})
		assert.Zero(t, *kills, "another intent's effect")
		a.ledger.Record(fakes.Effect{Kind: "charge", Markers: []string{"idem-1"}})
		assert.Equal(t, 1, *kills)
		undo()
		a.ledger.Record(fakes.Effect{Kind: "charge", Markers: []string{"idem-1"}})
		assert.Equal(t, 1, *kills, "undone: a later effect kills nothing")
	})
	t.Run("after the reply: the proxy's part", func(t *testing.T) {
		a, fk, kills := newArmed(t)
		f := builtin(t, faults.NameCrashAfterReply)
		a.call.Fault = f
		armerOf(f).arm(a)()
		assert.Empty(t, fk.rules)
		_, proxy := a.call.Fault.(faults.ProxyFault)
		assert.True(t, proxy, "the call carries what the proxy is to do")
		assert.Equal(t, f.Name(), a.call.Fault.Name())
		assert.Zero(t, *kills, "the proxy kills once the target has replied")
	})
}

// TestDisconnectArm: the call is made with a context of its own, which
// the fake's seeing the downstream call cancels, and the attempt is then
// known to have reached the target; undoing it disarms the fakes.
func TestDisconnectArm(t *testing.T) {
	a, fk, _ := newArmed(t)
	f := builtin(t, faults.NameClientDisconnect)
	a.call.Fault = f
	undo := armerOf(f).arm(a)
	require.Len(t, fk.rules, 1)
	assert.Equal(t, fakes.AwaitCaller, fk.rules[0].Action)
	assert.Equal(t, disconnectGrace, fk.rules[0].Delay, "the probes' grace")
	assert.NotSame(t, f, a.call.Fault, "the proxy is told when its request ends")
	require.NoError(t, a.ctx.Err())
	assert.False(t, a.forwarded.Load())

	// The proxy's request ended: the fake goes on at once.
	a.call.Fault.(faults.ProxyFault).Intercept(endedExchange{})
	fk.rules[0].OnMatch()
	assert.ErrorIs(t, a.ctx.Err(), context.Canceled, "the client left")
	assert.True(t, a.forwarded.Load(), "the target had the request")
	undo()
	assert.Equal(t, []string{"idem-1"}, fk.disarmed)

	t.Run("in the trials, the grace keeps the target's pace", func(t *testing.T) {
		a, fk, _ := newArmed(t)
		a.pace = disconnectGrace / 10
		defer armerOf(f).arm(a)()
		require.Len(t, fk.rules, 1)
		assert.Equal(t, disconnectGrace/10, fk.rules[0].Delay)
	})
}

// TestDisconnectSettlesFromTheRelease: the intent's effects are counted
// disconnectLand (and the operation's usual time) after the fake let the
// held call go on: at once when the fake says it did (the target gave up
// its call), the grace's end when it never says; in the trials both the
// grace and the land keep the target's pace. Run on a bubble's clock,
// whose waits are exact.
func TestDisconnectSettlesFromTheRelease(t *testing.T) {
	f := builtin(t, faults.NameClientDisconnect)
	const usual = 7 * time.Millisecond
	// release is when the fake says it let the call go on, counted from
	// the settle's start; never when negative.
	settle := func(t *testing.T, release, pace time.Duration) time.Duration {
		a, fk, _ := newArmed(t)
		a.pace = pace
		a.call.Fault = f
		var later func(context.Context)
		a.settleLater = func(w func(context.Context)) { later = w }
		a.usual = func() time.Duration { return usual }
		defer armerOf(f).arm(a)()
		require.Len(t, fk.rules, 1)
		a.call.Fault.(faults.ProxyFault).Intercept(endedExchange{})
		fk.rules[0].OnMatch()
		require.NotNil(t, later, "the effects are left to land")
		start := time.Now()
		switch {
		case release == 0:
			fk.rules[0].OnRelease()
		case release > 0:
			go func() {
				time.Sleep(release)
				fk.rules[0].OnRelease()
			}()
		}
		later(t.Context())
		return time.Since(start)
	}
	synctest.Test(t, func(t *testing.T) {
		assert.Equal(t, disconnectLand+usual, settle(t, 0, 0), "counted from the release")
		assert.Equal(t, 100*time.Millisecond+disconnectLand+usual, settle(t, 100*time.Millisecond, 0), "from a release while the settle waits")
		assert.Equal(t, disconnectGrace+disconnectLand+usual, settle(t, -1, 0), "from the grace's end, without word")
		// In the trials, the target's pace bounds the grace and the land.
		const pace = 3 * time.Millisecond
		assert.Equal(t, pace+usual, settle(t, 0, pace), "a trial's land keeps the target's pace")
		assert.Equal(t, 2*pace+usual, settle(t, -1, pace), "and so does its grace")
	})
}

// endedExchange is an exchange whose forward has ended at once.
type endedExchange struct{ faults.Exchange }

func (endedExchange) Forward() (*faults.Upstream, error) { return &faults.Upstream{Status: 200}, nil }
func (endedExchange) Reset()                             {}
