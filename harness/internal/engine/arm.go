package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// An armer prepares one attempt for a fault of the kind it is made for,
// where the harness itself must act around the call: it arms rules in the
// fakes, watches the ledger, replaces the call's fault with what the proxy
// is to do, or the context the call is made with. The runner knows no
// kind of fault: a new kind that needs the harness to act is one more
// armer, in a file of its own, listed in armers.
type armer interface {
	// arm prepares the attempt a; the function it returns undoes that,
	// once the attempt is over. An armer that can tell whether its fault
	// acted sets a.fired (armRule does for a fake's rule).
	arm(a *armed) (undo func())
	// needsFake says whether the fault can act only through a fake (a
	// rule armed in it, or an event it reports): a target whose effects
	// only observers count, with no fake, cannot take it.
	needsFake() bool
}

// armed is one attempt as an armer sees it and prepares it.
type armed struct {
	// ctx is the context the call is made with: an armer may replace it
	// (a client that leaves), and cancels its own when undone.
	ctx context.Context
	// run is the run's context: an armer's waits end with it.
	run context.Context
	// call is the call about to be made; an armer may replace its Fault
	// (the proxy's part of what the fault does).
	call *record.Call
	// fakes are the target's fakes, by name, and ledger the effects they
	// record.
	fakes  map[string]fakes.Fake
	ledger *fakes.Ledger
	// kill kills the target, once however often it is called; the runner
	// restarts it after the attempt.
	kill func()
	// pace is the generated trials' pace (see trialPace), 0 for the
	// probes: what an armer waits of the target keeps it.
	pace time.Duration
	// forwarded is set by an armer that knows the target had the request,
	// whatever the reply says.
	forwarded atomic.Bool
	// deps are the proxies in front of the target's dependencies, by
	// name.
	deps map[string]deps.Proxy
	// depsInFlight are those of deps that attribute statements by the
	// intent in flight rather than by its marker.
	depsInFlight map[string]deps.Proxy
	// settleLater, when not nil, keeps a wait for what the attempt set
	// going to land (bounded, ending with ctx) before the effects of a
	// later attempt of the intent are counted.
	settleLater func(wait func(ctx context.Context))
	// usual, when not nil, is the longest time an unfaulted call of the
	// operation took alone so far in the run (0 when none was timed):
	// what a target may still take to finish work it went on with.
	usual func() time.Duration
	// point, when not nil, is the downstream call of the intent the fault
	// acts at: its rule is armed in that fake alone, past the calls to it
	// before that one (see onPoint).
	point *record.EffectPoint
	// crashed is set when kill killed the target.
	crashed atomic.Bool
	// fired, when an armer sets it, says whether the fault acted: read
	// once the attempt is over and undone, a fault that was armed and
	// never acted examined nothing (record.Attempt.NotFired); read while
	// it runs, by a target that waits for it (actedFor). Nil: the armer
	// cannot tell.
	fired func() bool
	// unfiredWhy, when an armer sets it, is why its fault may not have
	// acted (record.Unexamined.Reason); "": checks.UnfiredReason.
	unfiredWhy string
}

// armers find the armer of a fault by the ability it has, in this order:
// a fault with several is armed by the first.
var armers = []func(faults.Fault) armer{disconnectArmer, depCrashArmer, crashArmer, depArmer, downstreamArmer}

// armerOf returns the armer of f, or nil for a fault the harness need not
// act around (it acts in the proxy or the client alone, which the adapter
// injects), and for no fault.
func armerOf(f faults.Fault) armer {
	for _, of := range armers {
		if a := of(f); a != nil {
			return a
		}
	}
	return nil
}

// needsFake reports whether f can only act through a fake (see
// armer.needsFake).
func needsFake(f faults.Fault) bool {
	a := armerOf(f)
	return a != nil && a.needsFake()
}

// armRule arms rule in every fake of a, and returns what removes the
// rules armed for the call's marker. It sets a.fired to say whether a
// fake acted on the rule, when every fake can tell (fakes.FiredAt).
func (a *armed) armRule(rule fakes.Rule) (disarm func()) {
	if a.point != nil {
		rule.Skip = a.point.N - 1
	}
	if base, known := a.firedAt(rule.Marker); known {
		a.fired = func() bool {
			n, _ := a.firedAt(rule.Marker)
			return n > base
		}
	}
	for _, fk := range a.pointFakes() {
		fk.Arm(rule)
	}
	return func() {
		for _, fk := range a.pointFakes() {
			fk.DisarmMarker(a.call.Marker)
		}
	}
}

// pointFakes are the fakes a rule of the attempt is armed in: the one of
// its effect point, or every one.
func (a *armed) pointFakes() map[string]fakes.Fake {
	if a.point == nil {
		return a.fakes
	}
	if fk, ok := a.fakes[a.point.Fake]; ok {
		return map[string]fakes.Fake{a.point.Fake: fk}
	}
	return nil
}

// onPoint returns a function that says, of each effect the ledger records,
// whether it is the one of the attempt's effect point: the first effect
// of the intent, or, with a point, the point's call to its fake.
func (a *armed) onPoint() func(fakes.Effect) bool {
	var mu sync.Mutex
	seen := 0
	return func(e fakes.Effect) bool {
		if !e.HasMarker(a.call.Marker) || (a.point != nil && e.Fake != a.point.Fake) {
			return false
		}
		if a.point == nil {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		seen++
		return seen == a.point.N
	}
}

// firedAt sums, over the fakes of a, how many requests the rules armed
// for marker m acted on; known is false when a fake cannot tell, or there
// is none.
func (a *armed) firedAt(m string) (n int, known bool) {
	fks := a.pointFakes()
	for _, fk := range fks {
		c, ok := fakes.FiredAt(fk, m)
		if !ok {
			return 0, false
		}
		n += c
	}
	return n, len(fks) > 0
}
