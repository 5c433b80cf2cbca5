package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
)

// EffectObserver counts the effects of intents in the target's own data
// (its database, its own list endpoint) rather than in a fake: after every
// attempt the harness asks each observer to record into the run's ledger
// the effects attributed to the intent's marker that the ledger does not
// hold yet, before it closes the attempt's ledger window. Package observe
// has the SQL and HTTP read-back observers.
type EffectObserver interface {
	// Name names the source; it is the Fake of every effect it records.
	Name() string
	// Observe records the effects of marker not yet in ledger. An error
	// means the source could not be read: the target cannot be judged.
	Observe(ctx context.Context, ledger *fakes.Ledger, marker string) error
	// Close releases the source.
	Close() error
}

// ObserverStarter opens one observer once the target has started: env has
// the state directory, t the started target (an HTTP target says where
// it listens through a BaseURL() string method).
type ObserverStarter func(ctx context.Context, env *Env, t Target) (EffectObserver, error)

// startObservers opens the spec's observers; the returned function closes
// them.
func startObservers(ctx context.Context, spec Spec, env *Env, t Target) ([]EffectObserver, func(), error) {
	var obs []EffectObserver
	closeAll := func() {
		for _, o := range obs {
			_ = o.Close()
		}
	}
	for _, start := range spec.Observers {
		o, err := start(ctx, env, t)
		if err != nil {
			closeAll()
			return nil, func() {}, fmt.Errorf("cannot start an effect observer: %w", err)
		}
		obs = append(obs, o)
	}
	return obs, closeAll, nil
}

// observe asks every observer for the effects of marker and reports
// whether there was any to ask. A source that cannot be read stops the
// run: without it, no effect of the target can be counted.
func (r *runner) observe(marker string) bool {
	if b, ok := r.target.(Budgeted); ok && r.fatal == nil {
		if err := b.Exhausted(); err != nil {
			r.fatal = err // a run cut short cannot be judged
		}
	}
	if len(r.observers) == 0 || r.fatal != nil {
		return false
	}
	var errs []error
	for _, o := range r.observers {
		if err := o.Observe(r.ctx, r.ledger, marker); err != nil && r.ctx.Err() == nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		r.fatal = fmt.Errorf("counting effects: %w", errors.Join(errs...))
	}
	return true
}

// Budgeted is a Target whose requests are bounded (a remote HTTP target):
// once Exhausted returns an error, the harness stops testing it and says
// why, rather than judging a run cut short.
type Budgeted interface {
	Exhausted() error
}

// needsFake reports whether f can only act through a fake: downstream
// faults, the client disconnect (timed by the fake seeing the target's
// downstream call), and the crash points that a fake's events trigger. A target
// whose effects only observers count has no fake for them.
func needsFake(f faults.Fault) bool {
	switch x := f.(type) {
	case faults.DownstreamFault, faults.DisconnectFault:
		return true
	case faults.CrashFault:
		return x.CrashPoint() != faults.AfterReply
	}
	return false
}

// observedOnly reports whether the target's effects are counted only by
// observers, with no fake to fail or to signal a crash point.
func (r *runner) observedOnly() bool {
	return len(r.observers) > 0 && len(r.env.Fakes) == 0
}
