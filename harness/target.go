package harness

import (
	"context"
	"net/http"

	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness/internal/engine"
	"github.com/idemcheck/idemcheck/keys"
)

// Target is a running system under test behind an adapter.
type Target interface {
	// Info describes the target and its operations.
	Info() TargetInfo
	// Call makes one attempt. A misbehaving target is reported in the
	// Reply, never as a panic.
	Call(ctx context.Context, c Call) Reply
	// Supports reports whether the adapter can inject f.
	Supports(f faults.Fault) bool
	// Close stops what Start started.
	Close() error
}

// Crasher is a Target whose process the harness started and can kill and
// restart: what crash faults need.
type Crasher interface {
	// Kill SIGKILLs the target's process group and returns once it is dead.
	Kill() error
	// Restart starts it again with the same environment and state
	// directory, and returns once it is ready.
	Restart(ctx context.Context) error
}

// Watched is a Target that can tell that what serves it is gone: a
// process the harness started that exited by itself, which no crash
// fault killed. Down says how it ended ("" while it runs). After every
// attempt the harness asks, and a target that is down ends the run of
// its probes (exit 3, with that reason; in a generated trial, a finding
// of the trial), instead of having every later call fail and be judged.
type Watched interface {
	Down() string
}

// Signer is a Target that can deliver a call with a wrong signature (a
// webhook sender), for webhook.signature.
type Signer interface {
	BadSignature(ctx context.Context, c Call) Reply
}

// Reorderer is a Target that can deliver several calls in the reverse of
// the order they were made in (a webhook sender), for webhook.out-of-order.
type Reorderer interface {
	OutOfOrder(ctx context.Context, calls []Call) []Reply
}

// Burster is a Target that can deliver n copies of one call at once, for
// concurrent.duplicates.
type Burster interface {
	Burst(ctx context.Context, c Call, n int) []Reply
}

// Concurrent is a Target that says how many calls it may take at once
// (a command-line tool's concurrency): the calls that need no order
// between them (the other keys sent before a late retry) go that many at
// a time; 0 leaves the harness's own number (8). A burst still sends its
// copies together: whether the target takes them is what it tests.
type Concurrent interface {
	Concurrency() int
}

// Budgeted is a Target whose requests are bounded (a remote HTTP target):
// once Exhausted returns an error, the harness stops testing it and says
// why, rather than judging a run cut short.
type Budgeted interface {
	Exhausted() error
}

// FaultExplainer is a Target that says why it cannot take a fault (a
// remote target takes only what a client can do); the report gives the
// reason beside the fault.
type FaultExplainer interface {
	// WhyUnsupported says why f cannot be injected ("" for no reason
	// worth more than the harness's own).
	WhyUnsupported(f faults.Fault) string
}

// Disrupter is a Target on which some faults act on more than the call
// they are armed for (an MCP server whose calls share one session, which
// a reset ends for every call in flight; a consumer group whose
// rebalance delivers every event in flight again): generated trials never
// run such a fault beside another step or another trial, as they never
// run a crash or a restart of the target's database (faults.Disrupts)
// beside one.
type Disrupter interface {
	// DisruptedBy says whether f, injected into one call, acts on the
	// others in flight on the target too.
	DisruptedBy(f faults.Fault) bool
}

// Env is what a target is started with.
type Env struct {
	// Fakes are the running fakes, by name.
	Fakes map[string]fakes.Fake
	// Ledger is shared by every fake of the target.
	Ledger *fakes.Ledger
	// StateDir is a fresh directory the target may keep state in.
	StateDir string
	// RunID is set in every started process's environment
	// (IDEMCHECK_RUN_ID), so leftovers can be found.
	RunID string
	// Deps are the running dependencies, by name: each the target's own
	// database or cache behind a proxy ({{deps.NAME.url}}).
	Deps map[string]*launch.Dependency

	// clock is the instance's time (see Now).
	clock *engine.Clock
	// client, in a bubble of testing/synctest, is the instance's own
	// HTTPClient: its connections, and the goroutines that serve them,
	// belong to the bubble and end with the instance.
	client *http.Client
}

// Dependency declares a database or cache the target keeps its state in:
// the harness starts it (or is given its address), puts a protocol proxy
// in front of it and hands the target the proxy's URL, so that the
// dependency faults can make it fail, stall or lose a commit's answer for
// one intent.
type Dependency = launch.Spec

// FakeStarter starts one fake writing to ledger; each fake package
// exports one (payments.Starter, email.Starter, webhooks.Starter).
type FakeStarter = fakes.Starter

// Spec says how to start a target and the fakes it needs.
type Spec struct {
	Name string
	Kind string
	// Fakes are started before the target, one set per target.
	Fakes []FakeStarter
	// Dependencies are started before the fakes, one set per instance of
	// the target, and stopped after it.
	Dependencies []Dependency
	// Start starts the target once the fakes run.
	Start func(ctx context.Context, env *Env) (Target, error)
	// Observers count effects in the target's own data, beside or
	// instead of the fakes (see EffectObserver).
	Observers []ObserverStarter
	// KeyFormat is the shape of the idempotency keys the target is sent;
	// the zero value is keys.Token.
	KeyFormat keys.Format
	// Options tune this target only, over the run's (e.g. fewer bursts
	// for a CLI tool, whose every burst copy is a process of its own).
	// Options that concern the whole run (seed, parallelism, shards,
	// progress) are ignored here.
	Options []Option
	// Isolated says that every Start makes an instance of the target of
	// its own (a process or container idemcheck starts with its own state
	// directory, a handler built anew), which another instance's calls
	// cannot reach: the generated trials then start on their own instance
	// while the probes' last late retries wait, instead of after them.
	Isolated bool
}
