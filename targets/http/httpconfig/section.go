package httpconfig

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// ConfigKind describes http targets to the configuration file.
var ConfigKind = section.Kind{
	Name: "http",
	Doc:  "a server reached over HTTP, started by idemcheck (start) or already running",
	New:  func() section.Target { return &Section{} },
	Hints: map[string]string{
		"command": "to have idemcheck start an http target, write start: {command: [...]}",
		"events":  "an http target lists operations; for a webhook handler write kind: webhook",
		"ready":   "an http target's readiness goes under start: {command: [...], ready: {path: /healthz}}",
	},
}

// Fields are what a target reached over HTTP writes, in an http or a
// container target's section.
type Fields struct {
	// URL is the target's base URL, such as "http://127.0.0.1:{{port}}";
	// it may use {{env.NAME}}. Its host must be loopback unless the
	// target allows remote hosts; {{port}} needs a target idemcheck
	// starts.
	URL string `yaml:"url,omitempty"`
	// KeyHeader is the request header that carries the idempotency key.
	// Default DefaultKeyHeader.
	KeyHeader string `yaml:"key_header,omitempty"`
	// Effect is where a reply says what it did (created, noop, ...).
	// Default: the JSON field "effect".
	Effect section.Locator `yaml:"effect,omitempty"`
	// DryRun is how the target is asked for a dry run; nil means it has
	// none.
	DryRun *section.DryRun `yaml:"dry_run,omitempty"`
	// Operations are what the harness calls. Required: at least one, and
	// names are unique within the target.
	Operations []section.Operation `yaml:"operations,omitempty"`
	// Callers are two or more callers' credentials: key.scope then sends
	// one key from two callers.
	Callers []section.Caller `yaml:"callers,omitempty"`
	// Profile is a published convention the target declares it follows
	// and asks to be held to: "ietf-draft" enables the ietf.draft check.
	// Empty: none.
	Profile string `yaml:"profile,omitempty"`
}

// Section is an http target's section of the configuration file.
type Section struct {
	section.Common `yaml:",inline"`
	Fields         `yaml:",inline"`
	// Start, when set, is how the harness starts (and restarts) the
	// target itself. Without it, the target must already be running.
	Start *section.Start `yaml:"start,omitempty"`
	// Remote allows a URL whose host is not loopback. idemcheck sends
	// duplicate and faulty requests on purpose, so this is opt-in.
	Remote bool `yaml:"allow_remote,omitempty"`
	// Limits bound the requests sent to the target: a budget and a rate.
	// Defaults apply with allow_remote.
	Limits *section.Limits `yaml:"limits,omitempty"`
	// Replicas is how many instances of the target idemcheck starts: each
	// on a {{port}} of its own, all with one state directory and the same
	// fakes. 0 or 1 means one.
	Replicas int `yaml:"replicas,omitempty"`
}

// Rules implements schema.Ruler.
func (Fields) Rules(r *schema.Rules) {
	r.Field("key_header").Pattern(section.HeaderName, section.BadHeader)
	r.Field("operations").Required("list at least one operation the target offers, with its name, mutating, method and path")
	r.Field("callers").Count(2, section.MaxCallers, func(got any) string {
		n := 0
		if l, ok := got.([]any); ok {
			n = len(l)
		}
		return fmt.Sprintf("%d callers: declare 2 to %d, each with the headers that identify it (key.scope sends one key from two callers)", n, section.MaxCallers)
	})
	r.Field("profile").Enum(harness.Profiles, func(got any) string {
		return fmt.Sprintf("unknown profile %q (known profiles: %s)", got, strings.Join(harness.Profiles, ", "))
	})
}

// Rules implements schema.Ruler.
func (Section) Rules(r *schema.Rules) {
	r.Field("url").Required(`the target's base URL, such as "http://127.0.0.1:{{port}}"`)
	r.Field("replicas").Range(0, httptarget.MaxReplicas, schema.Sprintf(fmt.Sprintf("%%v replicas is out of range; want 1 to %d", httptarget.MaxReplicas)))
}

// TargetURL implements section.Reached.
func (s *Section) TargetURL() string { return s.URL }

// Check implements section.Target.
func (s *Section) Check(c *section.Checker) {
	s.Common.Check(c, s)
	section.CheckURL(c.Field("url"), s.URL, section.URLPolicy{Remote: s.Remote, Started: s.Start != nil, StartPort: s.Start.UsesPort()})
	s.Fields.Check(c)
	if s.Start != nil {
		s.Start.Check(c.Field("start"))
	}
	if s.Replicas > 1 {
		rc := c.Field("replicas")
		switch {
		case s.Start == nil:
			rc.Errorf("replicas need a start command: idemcheck starts each instance itself; add start.command")
		case s.Remote:
			rc.Errorf("replicas cannot be combined with allow_remote: the instances are processes idemcheck starts on this machine")
		case !strings.Contains(s.URL, "{{port}}"):
			rc.Errorf("replicas need {{port}} in url (and in the start command): each instance listens on a port of its own")
		}
	}
}

// Check checks what the schema cannot say of the fields of a target
// reached over HTTP (its url is its kind's to check).
func (f *Fields) Check(c *section.Checker) {
	section.CheckOwnHeader(c.Field("key_header"), f.KeyHeader)
	f.Effect.Check(c.Field("effect"), false)
	if f.DryRun != nil {
		f.DryRun.Check(c.Field("dry_run"))
	}
	ops := c.Field("operations")
	names := make([]string, len(f.Operations))
	for i := range f.Operations {
		f.Operations[i].Check(ops.Index(i))
		names[i] = f.Operations[i].Name
	}
	ops.Unique("operation", "name", names, " within a target")
	section.CheckCallers(c.Field("callers"), f.Callers)
}

// Defaults implements section.Target.
func (s *Section) Defaults() {
	s.Common.Defaults()
	s.Fields.Defaults()
	if s.Start != nil {
		s.Start.Ready.Defaults()
	}
	if s.Remote {
		if s.Limits == nil {
			s.Limits = &section.Limits{}
		}
		if s.Limits.Requests == 0 {
			s.Limits.Requests = httptarget.DefaultRemoteLimits.Requests
		}
		if s.Limits.PerSecond == 0 {
			s.Limits.PerSecond = httptarget.DefaultRemoteLimits.PerSecond
		}
	}
}

// Defaults fills in the defaults of the fields of a target reached over
// HTTP.
func (f *Fields) Defaults() {
	if f.KeyHeader == "" {
		f.KeyHeader = section.DefaultKeyHeader
	}
	if f.Effect == (section.Locator{}) {
		f.Effect.JSON = section.DefaultEffectJSON
	}
	f.DryRun.Defaults()
	for i := range f.Operations {
		f.Operations[i].Defaults()
	}
}

// Spec implements section.Target.
func (s *Section) Spec(b *section.Builder) harness.Spec {
	cfg := s.Fields.Config(&s.Common, b)
	cfg.Remote = s.Remote
	if l := s.Limits; l != nil {
		cfg.Limits = httptarget.Limits{Requests: l.Requests, PerSecond: l.PerSecond}
	}
	l := b.Launch(s.Start)
	if l != nil {
		l.Replicas = s.Replicas
	}
	return httptarget.Spec(cfg, l, b.Fakes()...)
}

// Config is the adapter's configuration of the fields, for a target with
// the common fields c.
func (f *Fields) Config(c *section.Common, b *section.Builder) httptarget.Config {
	cfg := httptarget.Config{
		Name:      c.Name,
		BaseURL:   b.Env(f.URL),
		KeyHeader: f.KeyHeader,
		Effect:    *ConfigLocator(&f.Effect),
		Identity:  *ConfigLocator(&c.Identity),
		DryRun:    configDryRun(f.DryRun),
		Timeout:   c.Timeout.Std(),
		Profile:   f.Profile,
	}
	for _, cl := range f.Callers {
		cfg.Callers = append(cfg.Callers, httptarget.Caller{Headers: cl.Headers})
	}
	for _, op := range f.Operations {
		cfg.Operations = append(cfg.Operations, httptarget.Operation{
			Name: op.Name, Mutating: op.Mutating != nil && *op.Mutating,
			Method: op.Method, Path: op.Path, Headers: b.EnvMap(op.Headers), Body: op.Body,
			DryRun: configDryRun(op.DryRun), Effect: ConfigLocator(op.Effect), Identity: ConfigLocator(op.Identity),
			Inputs: section.HarnessInputs(op.Inputs),
		})
	}
	return cfg
}

// ConfigLocator is the adapter's Locator of a configuration's; nil for
// nil.
func ConfigLocator(l *section.Locator) *httptarget.Locator {
	if l == nil {
		return nil
	}
	return &httptarget.Locator{JSON: l.JSON, Header: l.Header}
}

func configDryRun(d *section.DryRun) *httptarget.DryRun {
	if d == nil {
		return nil
	}
	return &httptarget.DryRun{Query: d.Query, Header: d.Header, Value: d.Value}
}

// Commands implements section.Commander.
func (s *Section) Commands() []section.Command { return section.StartCommands(s.Start) }
