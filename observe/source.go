package observe

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/harness"
)

// Source is one kind of place an observer reads: a database, a read-back
// of the target's API or MCP tools, a file, a Redis. Its settings are the
// exported, JSON-tagged fields of the type that implements it, decoded by
// Registry.New; Open connects to it once the target has started.
// CREATING_OBSERVERS.md is the contract a new source keeps.
type Source interface {
	// Type is the name the source is registered under ("sql", "file"),
	// written in Detail["source"] of every effect it records.
	Type() string
	// Open connects to the source for one run of a target. Where has the
	// target's state directory, its fakes and the started target, and
	// expands the placeholders a setting may use.
	Open(ctx context.Context, w Where) (Finder, error)
}

// Validator is a Source whose settings can be wrong in ways known before
// any target starts: Registry.New refuses such settings, naming the
// source.
type Validator interface {
	Validate() error
}

// EffectKind is a Source that says what one of its effects is when the
// observer does not ("row" for a database, "object" for a read-back).
type EffectKind interface {
	EffectKind() string
}

// Row is one effect a source found: its identity in the source (a primary
// key, an object id, a file and line) and a few fields for evidence.
type Row struct {
	ID     string
	Detail map[string]string
}

// Found is what one read of a source found for a marker.
type Found struct {
	Rows []Row
	// Partial says why the rows may be incomplete, "" when they are not:
	// a read-back that stopped at its page limit. It is written in
	// Detail["partial"] of the effects the read records and counted in
	// the observer's Stats, so that a report can say its count may be low.
	Partial string
	// Absent says the source does not exist yet (a file or a SQLite
	// database the target has not created): no rows, and not an error.
	Absent string
}

// Finder reads a source: the rows attributed to one marker. A Finder that
// holds connections also implements io.Closer; one that can be read
// without a marker, as a number or as the identities of every row, also
// implements Measurer and can count by delta (Count).
type Finder interface {
	Find(ctx context.Context, marker string) (Found, error)
}

// Where is what a source may use to open: the target's environment and
// the started target.
type Where struct {
	// Env has the target's state directory and fakes; nil outside a run.
	Env *harness.Env
	// Target is the started target; nil outside a run.
	Target harness.Target
}

// Expand fills the placeholders a source setting may use: {{state_dir}},
// {{fakes.NAME.url}} (and .smtp) and {{env.NAME}}, a variable of
// idemcheck's own environment (an unset one is an error). {{marker}} is
// kept for each read.
func (w Where) Expand(s string) (string, error) {
	vars := map[string]string{}
	if w.Env != nil {
		vars = w.Env.Vars()
	}
	return expand(s, vars)
}

// BaseURL is the started target's URL (a target with a BaseURL() string
// method, as HTTP targets have), "" for any other.
func (w Where) BaseURL() string {
	if b, ok := w.Target.(interface{ BaseURL() string }); ok {
		return b.BaseURL()
	}
	return ""
}

// Limit is the started target's request budget (a remote HTTP target
// counts an observer's requests too), nil when it has none.
func (w Where) Limit() func(ctx context.Context, n int) error {
	if l, ok := w.Target.(interface {
		Take(ctx context.Context, n int) error
	}); ok {
		return l.Take
	}
	return nil
}

// Spec is one observer: the settings every source shares, and its
// source.
type Spec struct {
	// Name names the observer: the Fake of every effect it records
	// (default the source's Type).
	Name string
	// Kind says what one effect is ("order"); default the source's
	// EffectKind, else "effect".
	Kind string
	// Object names what the observer sees, in the target's terms
	// ("orders"): two observers of the same Object see the same effects,
	// and Merge counts an effect both saw once. Default Name, so that
	// observers of different things add up.
	Object string
	Settle Settle
	Source Source
}

// Open opens the source and returns the observer.
func (s Spec) Open(ctx context.Context, w Where) (*Observer, error) {
	if s.Source == nil {
		return nil, fmt.Errorf("observer %s: no source", s.Name)
	}
	name := s.Name
	if name == "" {
		name = s.Source.Type()
	}
	f, err := s.Source.Open(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("observer %s (%s): %w", name, s.Source.Type(), err)
	}
	kind := s.Kind
	if kind == "" {
		kind = "effect"
		if k, ok := s.Source.(EffectKind); ok {
			kind = k.EffectKind()
		}
	}
	o := New(name, s.Source.Type(), kind, s.Settle, f, closer(f))
	if s.Object != "" {
		o.object = s.Object
	}
	return o, nil
}

// Starter returns the harness.ObserverStarter that opens s for each run
// of a target: what harness.Spec.Observers takes.
func (s Spec) Starter() harness.ObserverStarter {
	return func(ctx context.Context, env *harness.Env, t harness.Target) (harness.EffectObserver, error) {
		return s.Open(ctx, Where{Env: env, Target: t})
	}
}

func closer(f Finder) func() error {
	if c, ok := f.(interface{ Close() error }); ok {
		return c.Close
	}
	return nil
}
