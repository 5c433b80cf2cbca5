package engine

import (
	"context"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
)

// Target is what the engine asks of a started target: package harness's
// Target, but for Close (an Instance stops what it started).
type Target interface {
	Info() record.TargetInfo
	Call(ctx context.Context, c record.Call) record.Reply
	Supports(f faults.Fault) bool
}

// The abilities a target may have besides Target, found by type
// assertion: each is package harness's interface of the same name (the
// harness keeps the two in step at compile time), documented there.
type (
	// Crasher is a target the harness can kill and restart.
	Crasher interface {
		Kill() error
		Restart(ctx context.Context) error
	}
	// Watched is a target that can tell that what serves it is gone.
	Watched interface {
		Down() string
	}
	// Signer is a target that can deliver a call with a wrong signature.
	Signer interface {
		BadSignature(ctx context.Context, c record.Call) record.Reply
	}
	// Reorderer is a target that can deliver calls newest first.
	Reorderer interface {
		OutOfOrder(ctx context.Context, calls []record.Call) []record.Reply
	}
	// Burster is a target that can deliver copies of one call at once.
	Burster interface {
		Burst(ctx context.Context, c record.Call, n int) []record.Reply
	}
	// Concurrent is a target that says how many calls it may take at
	// once (0: as many as the harness sends).
	Concurrent interface {
		Concurrency() int
	}
	// Budgeted is a target whose requests are bounded.
	Budgeted interface {
		Exhausted() error
	}
	// FaultExplainer is a target that says why it cannot take a fault.
	FaultExplainer interface {
		WhyUnsupported(f faults.Fault) string
	}
	// Disrupter is a target on which some faults act on more than the
	// call they are armed for.
	Disrupter interface {
		DisruptedBy(f faults.Fault) bool
	}
)

// disrupts says whether f acts on the whole of target t rather than on
// the attempt it is armed for: a fault that does so wherever it is
// injected (faults.Disrupts: a crash, a database restart), or one that t
// says does so on it (Disrupter). Such a fault runs in no group of steps
// and in no trial beside another.
func disrupts(t Target, f faults.Fault) bool {
	if f == nil {
		return false
	}
	if faults.Disrupts(f) {
		return true
	}
	d, ok := t.(Disrupter)
	return ok && d.DisruptedBy(f)
}

// Observer counts the effects of an intent in the target's own data: the
// part of package harness's EffectObserver the engine calls.
type Observer interface {
	Observe(ctx context.Context, ledger *fakes.Ledger, marker string) error
}

// Instance is one started instance of a target: the target, the fakes it
// calls (by name), the observers that count its effects and the proxies
// in front of its dependencies.
type Instance struct {
	Target    Target
	Fakes     map[string]fakes.Fake
	Observers []Observer
	// Deps are the proxies in front of the target's dependencies, by
	// name: where the dependency faults are armed.
	Deps map[string]deps.Proxy
	// DepsInFlight are those of Deps told which intent is in flight
	// (deps.Control.SetInFlight).
	DepsInFlight map[string]deps.Proxy
	// Close stops the observers, the target and the fakes, in that order,
	// and returns the error the target gave on stopping, if any.
	Close func() error
	// Clock, when not nil, is the time as the instance sees it, if it
	// reads it there (see Clock).
	Clock *Clock
}

// Spec is what the engine needs of a target's specification.
type Spec struct {
	Name string
	Kind string
	// KeyFormat shapes the idempotency keys the target is sent.
	KeyFormat keys.Format
	// Isolated says that every Start makes an instance of the target of
	// its own, which another instance's calls cannot reach.
	Isolated bool
	// Start starts an instance of the target in stateDir, its fakes
	// writing to ledger, with runID in every started process's
	// environment. On an error it has stopped whatever it started; the
	// error says what could not be started.
	Start func(ctx context.Context, ledger *fakes.Ledger, stateDir, runID string) (*Instance, error)
}
