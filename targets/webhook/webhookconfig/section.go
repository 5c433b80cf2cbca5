package webhookconfig

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// ConfigKind describes webhook targets to the configuration file.
var ConfigKind = section.Kind{
	Name: webhook.Kind,
	Doc:  "a webhook handler, to which idemcheck delivers signed events",
	New:  func() section.Target { return &Section{} },
	Hints: map[string]string{
		"command":    "to have idemcheck start a webhook handler, write start: {command: [...]}",
		"operations": "a webhook target lists events, each with name, path and body",
		"ready":      "a webhook handler's readiness goes under start: {command: [...], ready: {path: /healthz}}",
		"replicas":   "to see whether several instances of a handler share what they have seen, describe it as an http target whose body carries {{key}} (docs/guides/webhook.md)",
	},
}

// SignatureSchemes are the schemes a webhook target's deliveries may be
// signed with.
var SignatureSchemes = []string{webhook.SchemeStripe, webhook.SchemeHex, webhook.SchemeBase64, webhook.SchemeNone}

// Section is a webhook target's section of the configuration file.
type Section struct {
	section.Common `yaml:",inline"`
	// URL is the handler's base URL, such as "http://127.0.0.1:{{port}}";
	// it may use {{env.NAME}}. Required. Its host must be loopback unless
	// the target allows remote hosts; {{port}} needs start.
	URL string `yaml:"url,omitempty"`
	// Start, when set, is how the harness starts (and restarts) the
	// handler itself. Without it, the handler must already be running.
	Start *section.Start `yaml:"start,omitempty"`
	// Remote allows a URL whose host is not loopback. idemcheck sends
	// duplicate and faulty deliveries on purpose, so this is opt-in.
	Remote bool `yaml:"allow_remote,omitempty"`
	// Signature says how idemcheck signs each delivery. Required.
	Signature *SignatureSection `yaml:"signature,omitempty"`
	// IDHeader, if set, also carries the event id in this header (Svix's
	// webhook-id, GitHub's X-GitHub-Delivery); otherwise it is only where
	// the event's body puts {{key}}.
	IDHeader string `yaml:"id_header,omitempty"`
	// Events are the kinds of event delivered to the handler. Required:
	// at least one, and names are unique within the target.
	Events []EventSection `yaml:"events,omitempty"`
}

// SignatureSection says how a webhook target's deliveries are signed:
// with HMAC-SHA256 under Secret, in Header, in the format of Scheme.
type SignatureSection struct {
	// Secret is the shared signing secret, written as is (no environment
	// expansion). Required unless Scheme is "none". Errors never show it.
	Secret section.Secret `yaml:"secret,omitempty"`
	// Header carries the signature. Default webhook.DefaultSignatureHeader.
	Header string `yaml:"header,omitempty"`
	// Scheme is one of SignatureSchemes: "stripe" (t=TIMESTAMP,v1=HEX, the
	// default), "hex" (Prefix and the hex HMAC of the body, as GitHub's
	// X-Hub-Signature-256 with prefix "sha256="), "base64" (as Shopify's
	// X-Shopify-Hmac-Sha256) or "none" (unsigned).
	Scheme string `yaml:"scheme,omitempty"`
	// Prefix starts a "hex" or "base64" signature, such as "sha256=".
	Prefix string `yaml:"prefix,omitempty"`
}

// String describes the signature without its secret, so that a target
// printed with any verb cannot show it.
func (s SignatureSection) String() string {
	return fmt.Sprintf("{secret:%s header:%s scheme:%s prefix:%s}", s.Secret, s.Header, s.Scheme, s.Prefix)
}

// EventSection is one kind of event delivered to a webhook target: a
// POST of Body to Path, signed. Every delivery of an intent, redeliveries
// included, carries the same event id, {{key}}.
type EventSection struct {
	// Name identifies the event within its target, such as "invoice.paid".
	// Required, unique.
	Name string `yaml:"name"`
	// Safe marks an event that must cause no side effect (a ping).
	// Default false: the event is expected to act, once.
	Safe bool `yaml:"safe,omitempty"`
	// Path is the handler's endpoint under the target's URL, starting
	// with "/". Required. It may use {{key}}, {{marker}} and
	// {{input.NAME}}.
	Path string `yaml:"path"`
	// Headers are sent with every delivery; values may use what Body may.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Body is the payload. Required. It carries the event id as {{key}}
	// (unless the target sets id_header) and {{marker}} where the handler
	// passes it on downstream; it may also use {{input.NAME}} and
	// {{created}}, the Unix time the event was first delivered.
	Body string `yaml:"body"`
	// Inputs are the values the harness generates for {{input.NAME}}.
	Inputs map[string]section.Input `yaml:"inputs,omitempty"`
}

// Rules implements schema.Ruler.
func (Section) Rules(r *schema.Rules) {
	r.Field("url").Required(`the target's base URL, such as "http://127.0.0.1:{{port}}"`)
	r.Field("signature").Required("say how deliveries are signed, such as signature: {secret: …} with the sender's signing secret in place of … (signed with HMAC-SHA256 as Stripe does, scheme stripe), or signature: {scheme: none} for a handler that checks no signature")
	r.Field("id_header").Pattern(section.HeaderName, section.BadHeader)
	r.Field("events").Required(`list at least one event the handler receives, with its name, path and body, such as {name: invoice.paid, path: /webhooks, body: '{"id":"{{key}}","memo":"{{marker}}"}'}`)
}

// Rules implements schema.Ruler.
func (SignatureSection) Rules(r *schema.Rules) {
	r.Field("header").Pattern(section.HeaderName, section.BadHeader)
	r.Field("scheme").Enum(SignatureSchemes, schema.Unknown("scheme", SignatureSchemes))
}

// Rules implements schema.Ruler.
func (EventSection) Rules(r *schema.Rules) {
	r.Field("name").Required(`give the event a name, such as "invoice.paid"`)
	r.Field("path").Required(`the handler's endpoint under the target's URL, starting with "/", such as /webhooks`).Pattern(section.SlashPath, section.BadSlashPath).Pattern(section.NoControl, section.BadControl)
	r.Field("headers").Keys().Pattern(section.HeaderName, section.BadHeader)
	r.Field("headers").Items().Pattern(section.NoControl, section.BadControl)
	r.Field("body").Required(`the payload, with the event id as {{key}} and the intent's marker, such as '{"id":"{{key}}","type":"invoice.paid","memo":"{{marker}}"}'`)
	r.Field("inputs").Keys().Pattern(section.InputName, section.BadInputName)
}

// TargetURL implements section.Reached.
func (s *Section) TargetURL() string { return s.URL }

// Check implements section.Target. Nothing here may print the signing
// secret.
func (s *Section) Check(c *section.Checker) {
	s.Common.Check(c, s)
	section.CheckURL(c.Field("url"), s.URL, section.URLPolicy{Remote: s.Remote, Started: s.Start != nil, StartPort: s.Start.UsesPort()})
	if s.Start != nil {
		s.Start.Check(c.Field("start"))
	}
	if sig := s.Signature; sig != nil {
		sig.check(c.Field("signature"))
		section.CheckOwnHeader(c.Field("signature").Field("header"), sig.Header)
	}
	section.CheckOwnHeader(c.Field("id_header"), s.IDHeader)
	// The adapter sets these headers on every delivery; an event's own
	// header of the same name would be silently replaced.
	reserved := map[string]string{}
	if s.Signature != nil && s.Signature.Scheme != webhook.SchemeNone {
		h := cmp.Or(s.Signature.Header, webhook.DefaultSignatureHeader)
		reserved[strings.ToLower(h)] = "the signature (signature.header)"
	}
	if s.IDHeader != "" {
		if what, clash := reserved[strings.ToLower(s.IDHeader)]; clash {
			c.Field("id_header").Errorf("%q already carries %s: the event id needs a header of its own", s.IDHeader, what)
		}
		reserved[strings.ToLower(s.IDHeader)] = "the event id (id_header)"
	}
	events := c.Field("events")
	names := make([]string, len(s.Events))
	for i := range s.Events {
		s.Events[i].check(events.Index(i), s.IDHeader != "", reserved)
		names[i] = s.Events[i].Name
	}
	events.Unique("event", "name", names, " within a target")
}

// check checks what the schema cannot say of a signature. The secret is
// never part of a message.
func (sig *SignatureSection) check(c *section.Checker) {
	scheme := cmp.Or(sig.Scheme, webhook.SchemeStripe)
	if !slices.Contains(SignatureSchemes, scheme) {
		return // the schema said so
	}
	if sig.Secret == "" && scheme != webhook.SchemeNone {
		c.Field("secret").Missing("the signing secret the handler shares with idemcheck, written as is; or scheme: none for a handler that checks no signature")
	}
	if sig.Prefix != "" && (scheme == webhook.SchemeStripe || scheme == webhook.SchemeNone) {
		c.Field("prefix").Errorf("a prefix is for the hex and base64 schemes; scheme %s has none", scheme)
	}
}

// check checks one kind of event: where it goes, and that every delivery
// carries its event id and its intent's marker.
func (ev *EventSection) check(c *section.Checker, idHeader bool, reserved map[string]string) {
	inputs := section.SortedKeys(ev.Inputs)
	path, headers, body := c.Field("path"), c.Field("headers"), c.Field("body")
	used := path.IntentTemplate(ev.Path, "event", inputs)
	for _, k := range section.SortedKeys(ev.Headers) {
		hc := headers.Key(k)
		if what, clash := reserved[strings.ToLower(k)]; clash {
			hc.Errorf("%s is set by idemcheck on every delivery: it carries %s; remove it here", k, what)
		}
		used = used.Or(hc.IntentTemplate(hc.EnvRefs(ev.Headers[k]), "event", inputs, section.PhCreated))
	}
	used = used.Or(body.IntentTemplate(ev.Body, "event", inputs, section.PhCreated))
	section.CheckInputs(c.Field("inputs"), ev.Inputs)

	// Stay quiet about what is missing from strings that are broken or
	// absent: they have their own errors.
	if path.Refused() || headers.Refused() || body.Refused() || ev.Body == "" {
		return
	}
	if !used.Key && !idHeader && !ev.Safe {
		body.Errorf("event %q does not carry its event id: put {{key}} in its body where the handler reads the id, such as {\"id\":\"{{key}}\",…} (every redelivery of an event has the same id, which is how a handler de-duplicates), or set id_header to send it in a header", ev.Name)
	}
	if !used.Marker {
		if ev.Safe {
			c.Errorf("safe event %q does not use {{marker}}: put {{marker}} in its body, so that a side effect it causes by mistake can be attributed to it (that is how safe.readonly finds one)", ev.Name)
		} else {
			c.Errorf("event %q does not use {{marker}}: put {{marker}} in its body where the handler passes it on to its downstream calls (a payment's description, an email's text), so that the fakes can attribute each side effect to the delivery that caused it", ev.Name)
		}
	}
}

// Defaults implements section.Target.
func (s *Section) Defaults() {
	s.Common.Defaults()
	if s.Start != nil {
		s.Start.Ready.Defaults()
	}
	if sig := s.Signature; sig != nil {
		if sig.Header == "" {
			sig.Header = webhook.DefaultSignatureHeader
		}
		if sig.Scheme == "" {
			sig.Scheme = webhook.SchemeStripe
		}
	}
	for i := range s.Events {
		section.DefaultInputs(s.Events[i].Inputs)
	}
}

// Spec implements section.Target: idemcheck delivers each event to the
// handler, signed, through the HTTP adapter's fault proxy.
func (s *Section) Spec(b *section.Builder) harness.Spec {
	cfg := webhook.Config{
		Name:     s.Name,
		BaseURL:  b.Env(s.URL),
		IDHeader: s.IDHeader,
		Identity: *httpconfig.ConfigLocator(&s.Identity),
		Timeout:  s.Timeout.Std(),
	}
	if sig := s.Signature; sig != nil {
		cfg.Signature = webhook.Signature{Secret: string(sig.Secret), Header: sig.Header, Scheme: sig.Scheme, Prefix: sig.Prefix}
	}
	for _, ev := range s.Events {
		cfg.Events = append(cfg.Events, webhook.Event{
			Name: ev.Name, Safe: ev.Safe, Path: ev.Path, Headers: b.EnvMap(ev.Headers), Body: ev.Body, Inputs: section.HarnessInputs(ev.Inputs),
		})
	}
	return webhook.Spec(cfg, b.Launch(s.Start), b.Fakes()...)
}

// Commands implements section.Commander.
func (s *Section) Commands() []section.Command { return section.StartCommands(s.Start) }
