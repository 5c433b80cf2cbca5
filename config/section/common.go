package section

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/keys"
)

// Common holds the fields every kind of target has. A kind's struct
// embeds it inline, first:
//
//	type Section struct {
//		section.Common `yaml:",inline"`
//		URL string `yaml:"url"`
//		…
//	}
type Common struct {
	// Name identifies the target in reports and on the command line.
	// Required: lower-case letters, digits, '.', '_' and '-', starting with
	// a letter or digit.
	Name string `yaml:"name"`
	// Kind says what the target is and how idemcheck reaches it, and so
	// which fields it has: one of the registry's kinds. Required.
	Kind string `yaml:"kind"`
	// KeyFormat is the shape of the keys idemcheck sends: "token" (the
	// default, idk- and 16 hex digits), "uuid" (a version 4 UUID, for a
	// target that validates its keys), or a template such as
	// "order-{{hex 16}}" (see package keys).
	KeyFormat string `yaml:"key_format,omitempty"`
	// Timeout bounds each attempt; zero or absent means 10s
	// (DefaultTimeout).
	Timeout Duration `yaml:"timeout,omitempty"`
	// Identity is where a reply names the result, to compare replays
	// (the JSON field data.id when absent: DefaultIdentityJSON).
	Identity Locator `yaml:"identity,omitempty"`
	// FreshTrials starts the target (and its fakes) afresh for every
	// generated trial. By default the trials share one running target,
	// told apart by their keys and markers, and restart it only when a
	// trial asks; a target whose state carries from one key to another (a
	// rate limit, a quota, a global counter) needs a fresh one per trial.
	FreshTrials bool `yaml:"fresh_trials,omitempty"`
	// TrialWorkers is how many generated trials run at once on the
	// target, 1 to 64. Default: 4 for a target idemcheck starts (each
	// worker on an instance of its own, so a seed finds the same
	// counterexample whatever the timing), 1 for one reached at a URL it
	// was not started from (more then share its one instance).
	TrialWorkers int `yaml:"trial_workers,omitempty"`
	// Observe lists sources that count the target's effects in its own
	// data, beside or instead of the fakes: a query on its database (sql),
	// or a read-back of its own API under its url (http).
	Observe []Observer `yaml:"observe,omitempty"`
	// Dependencies are the databases and caches the target keeps its own
	// state in, by name: each behind a proxy idemcheck starts, handed to
	// the target as {{deps.NAME.url}}, where the dependency faults act.
	Dependencies map[string]Dependency `yaml:"dependencies,omitempty"`
}

// Defaults of every target.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultIdentityJSON = "data.id"
	DefaultEffectJSON   = "effect"
	DefaultKeyHeader    = "Idempotency-Key"
	// MaxTrialWorkers bounds trial_workers: each worker of a target that
	// idemcheck starts runs an instance of its own.
	MaxTrialWorkers = 64
)

// Base implements Target for every struct that embeds Common.
func (t *Common) Base() *Common { return t }

// Rules implements schema.Ruler.
func (Common) Rules(r *schema.Rules) {
	r.Field("name").Required(`give the target a name, such as "shop"`).
		Pattern(`^[a-z0-9][a-z0-9._-]*$`, schema.Sprintf("invalid name %q: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit")).
		Pattern(fmt.Sprintf(`^.{1,%d}$`, MaxNameLength), func(got any) string {
			s, _ := got.(string)
			return fmt.Sprintf("a name of %d characters is too long: keep it to %d (it names the target in every report, file and command line)", len([]rune(s)), MaxNameLength)
		})
	r.Field("trial_workers").Range(0, MaxTrialWorkers, schema.Sprintf(fmt.Sprintf("%%v trial workers is out of range; want 1 to %d", MaxTrialWorkers)))
}

// MaxNameLength bounds a target's name: it names the target in reports,
// in the files of saved trials and on the command line.
const MaxNameLength = 64

// Check checks the common fields of t, a target of any kind.
func (t *Common) Check(c *Checker, self Target) {
	if _, err := keys.Parse(t.KeyFormat); err != nil {
		c.Field("key_format").Errorf("%v (write uuid, token, or a template such as \"order-{{hex 16}}\")", err)
	}
	t.Identity.Check(c.Field("identity"), false)
	url := ""
	if r, ok := self.(Reached); ok {
		url = r.TargetURL()
	}
	CheckObservers(c.Field("observe"), t.Observe, url != "")
	CheckDependencies(c.Field("dependencies"), t.Dependencies)
}

// Defaults fills in the common fields' defaults.
func (t *Common) Defaults() {
	if t.Identity == (Locator{}) {
		t.Identity.JSON = DefaultIdentityJSON
	}
	if t.Timeout == 0 {
		t.Timeout = Duration(DefaultTimeout)
	}
	for i := range t.Observe {
		t.Observe[i].Defaults()
	}
}

// Finish adds to spec what the common fields say: the key format, fresh
// trials, trial workers, observers and dependencies.
func (t *Common) Finish(b *Builder, spec *harness.Spec) {
	format, err := keys.Parse(t.KeyFormat)
	if err != nil { // checked when the file was loaded; a File built in Go may not be
		b.Errorf("key_format", "%v", err)
	}
	spec.KeyFormat = format
	if t.FreshTrials {
		spec.Options = append(spec.Options, harness.WithFreshTrials())
	}
	if t.TrialWorkers > 0 {
		spec.Options = append(spec.Options, harness.WithTrialWorkers(t.TrialWorkers))
	}
	spec.Observers = append(spec.Observers, starters(b, t.Observe)...)
	spec.Dependencies = append(spec.Dependencies, dependencies(b, t.Dependencies, ByDelta(t.Observe))...)
}
