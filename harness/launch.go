package harness

import (
	"context"
	"fmt"
	"sort"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness/internal/engine"
	"github.com/idemcheck/idemcheck/internal/bubble"
)

// The engine asks of a target what these interfaces ask: a value that
// implements one here implements the engine's of the same name.
var (
	_ engine.Target         = Target(nil)
	_ engine.Observer       = EffectObserver(nil)
	_ engine.Crasher        = Crasher(nil)
	_ Crasher               = engine.Crasher(nil)
	_ engine.Signer         = Signer(nil)
	_ Signer                = engine.Signer(nil)
	_ engine.Reorderer      = Reorderer(nil)
	_ Reorderer             = engine.Reorderer(nil)
	_ engine.Burster        = Burster(nil)
	_ Burster               = engine.Burster(nil)
	_ engine.Concurrent     = Concurrent(nil)
	_ Concurrent            = engine.Concurrent(nil)
	_ engine.Budgeted       = Budgeted(nil)
	_ Budgeted              = engine.Budgeted(nil)
	_ engine.FaultExplainer = FaultExplainer(nil)
	_ FaultExplainer        = engine.FaultExplainer(nil)
	_ engine.Disrupter      = Disrupter(nil)
	_ Disrupter             = engine.Disrupter(nil)
	_ engine.Watched        = Watched(nil)
	_ Watched               = engine.Watched(nil)
)

// engineSpec is what the engine needs of spec.
func (spec Spec) engineSpec() engine.Spec {
	return engine.Spec{Name: spec.Name, Kind: spec.Kind, KeyFormat: spec.KeyFormat, Isolated: spec.Isolated, Start: spec.launch}
}

// depsProblem adds to a target's start error what its dependencies'
// proxies say went wrong: a target that insists on TLS to its database,
// one its database did not answer.
func depsProblem(ds map[string]*launch.Dependency, err error) error {
	for _, name := range sortedNames(ds) {
		if why := engine.DepProblem(ds[name].Proxy); why != "" {
			return fmt.Errorf("%w (dependency %s: %s)", err, name, why)
		}
	}
	return err
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// launch starts an instance of the target in stateDir: its dependencies, its fakes, writing
// to ledger, then the target, then its observers. On an error it stops
// what it started, and says what could not be started.
func (spec Spec) launch(ctx context.Context, ledger *fakes.Ledger, stateDir, runID string) (_ *engine.Instance, err error) {
	env := &Env{Fakes: map[string]fakes.Fake{}, Ledger: ledger, StateDir: stateDir, RunID: runID, Deps: map[string]*launch.Dependency{}, clock: engine.NewClock()}
	if bubble.In() {
		env.client = newFakesClient()
	}
	var target Target
	var obs []EffectObserver
	stop := func() error {
		for _, o := range obs {
			_ = o.Close()
		}
		var err error
		if target != nil {
			err = target.Close()
		}
		for _, f := range env.Fakes {
			_ = f.Close()
		}
		for _, d := range env.Deps {
			_ = d.Close()
		}
		if env.client != nil {
			env.client.CloseIdleConnections()
		}
		return err
	}
	defer func() {
		if err != nil {
			_ = stop()
		}
	}()
	for _, ds := range spec.Dependencies {
		d, err := launch.Start(ctx, ds)
		if err != nil {
			return nil, err
		}
		env.Deps[ds.Name] = d
	}
	for _, start := range spec.Fakes {
		f, err := start(ctx, ledger)
		if err != nil {
			return nil, fmt.Errorf("cannot start a fake: %w", err)
		}
		env.Fakes[f.Name()] = f
	}
	t, err := spec.Start(ctx, env)
	if err != nil {
		return nil, depsProblem(env.Deps, err) // a target that failed to start is not touched
	}
	target = t
	inst := &engine.Instance{Target: target, Fakes: env.Fakes, Close: stop, Clock: env.clock}
	if len(env.Deps) > 0 {
		inst.Deps = map[string]deps.Proxy{}
		for name, d := range env.Deps {
			inst.Deps[name] = d.Proxy
			if d.InFlight {
				if inst.DepsInFlight == nil {
					inst.DepsInFlight = map[string]deps.Proxy{}
				}
				inst.DepsInFlight[name] = d.Proxy
			}
		}
	}
	for _, start := range spec.Observers {
		o, err := start(ctx, env, target)
		if err != nil {
			return nil, fmt.Errorf("cannot start an effect observer: %w", err)
		}
		obs = append(obs, o)
		inst.Observers = append(inst.Observers, o)
	}
	return inst, nil
}
