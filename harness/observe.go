package harness

import (
	"context"

	"github.com/idemcheck/idemcheck/fakes"
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
