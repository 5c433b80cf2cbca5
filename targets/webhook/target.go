package webhook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// Kind is the adapter's kind in reports.
const Kind = "webhook"

// Event is one kind of event the sender delivers: an operation.
type Event struct {
	// Name is the operation's name, e.g. "invoice.due".
	Name string
	// Safe marks an event that must cause no side effect (a ping).
	Safe bool
	// Path is the handler's endpoint, e.g. /webhooks/payments. It may use
	// {{key}}, {{marker}} and {{input.NAME}}.
	Path string
	// Headers are sent with every delivery; values are templates.
	Headers map[string]string
	// Body is the payload template; {{key}} is the event id.
	Body   string
	Inputs map[string]harness.Input
}

// Config describes a webhook handler.
type Config struct {
	Name string
	// BaseURL is where the handler listens; it may use {{port}} when the
	// harness starts it.
	BaseURL   string
	Signature Signature
	// IDHeader, if set, also carries the event id in a header (Svix's
	// webhook-id, GitHub's X-GitHub-Delivery); by default the id is only
	// in the payload, as at Stripe.
	IDHeader string
	// Identity locates the result identity compared across redeliveries
	// (replay.consistent); default JSON data.id.
	Identity httptarget.Locator
	// Timeout bounds each delivery without a client fault.
	Timeout time.Duration
	Events  []Event
	// Now is the clock for signature timestamps and {{created}}; nil
	// means time.Now.
	Now func() time.Time
}

// Internal inputs by which a pre-rendered delivery passes through the
// wrapped HTTP target's templates.
const (
	inBody = "__idemcheck_body"
	inSig  = "__idemcheck_signature"
	inKey  = "__idemcheck_key"
	inHdr  = "__idemcheck_header_"
)

var keyPlaceholder = lazyregexp.New(`\{\{\s*key\s*\}\}`)

// httpConfig is the wrapped HTTP target's configuration: each event's body,
// signature and headers come in as inputs that Call renders.
func httpConfig(cfg Config) httptarget.Config {
	out := httptarget.Config{Name: cfg.Name, BaseURL: cfg.BaseURL, Identity: cfg.Identity, Timeout: cfg.Timeout}
	for _, ev := range cfg.Events {
		op := httptarget.Operation{
			Name: ev.Name, Mutating: !ev.Safe, Method: "POST",
			Path:    keyPlaceholder.ReplaceAllString(ev.Path, "{{input."+inKey+"}}"),
			Body:    "{{input." + inBody + "}}",
			Headers: map[string]string{},
			Inputs:  ev.Inputs,
		}
		for i, name := range slices.Sorted(maps.Keys(ev.Headers)) {
			op.Headers[name] = "{{input." + inHdr + strconv.Itoa(i) + "}}"
		}
		if cfg.Signature.Scheme != SchemeNone {
			op.Headers[cfg.Signature.Header] = "{{input." + inSig + "}}"
		}
		if cfg.IDHeader != "" {
			op.Headers[cfg.IDHeader] = "{{input." + inKey + "}}"
		}
		out.Operations = append(out.Operations, op)
	}
	return out
}

func (cfg *Config) validate() error {
	if len(cfg.Events) == 0 {
		return fmt.Errorf("webhook target %s: no events", cfg.Name)
	}
	seen := map[string]bool{}
	for _, ev := range cfg.Events {
		switch {
		case ev.Name == "":
			return fmt.Errorf("webhook target %s: an event has no name", cfg.Name)
		case seen[ev.Name]:
			return fmt.Errorf("webhook target %s: event %s is listed twice", cfg.Name, ev.Name)
		case ev.Path == "":
			return fmt.Errorf("webhook target %s: event %s has no path", cfg.Name, ev.Name)
		}
		seen[ev.Name] = true
	}
	if err := cfg.Signature.fill(); err != nil {
		return fmt.Errorf("webhook target %s: %w", cfg.Name, err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return nil
}

// Target is a webhook handler reached by signed deliveries through a fault
// proxy. It implements harness.Target and harness.Burster, and
// harness.Crasher when the harness started the handler.
type Target struct {
	cfg    Config
	events map[string]Event
	inner  harness.Target
	info   harness.TargetInfo

	mu      sync.Mutex
	created map[string]int64 // event id → {{created}}
	last    int64
	// inflight counts the deliveries under way (Call); open is the
	// {{created}} of the events first delivered since none was: events
	// delivered at once were made together, and share it, as a provider
	// stamps events made in one second.
	inflight int
	open     int64
}

var (
	_ harness.Target  = (*Target)(nil)
	_ harness.Burster = (*Target)(nil)
	_ harness.Crasher = (*Target)(nil)
)

// New puts a fault proxy in front of a running handler at cfg.BaseURL.
func New(cfg Config) (*Target, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	inner, err := httptarget.New(httpConfig(cfg))
	if err != nil {
		return nil, err
	}
	return wrap(cfg, inner), nil
}

// Spec returns a harness.Spec that starts the fakes, then the handler's
// process (when launch is not nil; see targets/http.Launch for its
// placeholders), then the adapter in front of it.
func Spec(cfg Config, launch *httptarget.Launch, fks ...harness.FakeStarter) harness.Spec {
	verr := cfg.validate()
	inner := httptarget.Spec(httpConfig(cfg), launch, fks...)
	return harness.Spec{
		Name: cfg.Name, Kind: Kind, Fakes: fks,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			if verr != nil {
				return nil, verr
			}
			t, err := inner.Start(ctx, env)
			if err != nil {
				return nil, err
			}
			return wrap(cfg, t), nil
		},
		Isolated: inner.Isolated,
	}
}

func wrap(cfg Config, inner harness.Target) *Target {
	t := &Target{cfg: cfg, events: map[string]Event{}, inner: inner, created: map[string]int64{}}
	// A handler has none of the conventions of a keyed API: no key header
	// (the event id is in the payload), no effect field, no dry run. It is
	// a Signer and a Reorderer, which the harness sees for itself.
	t.info = harness.TargetInfo{Name: cfg.Name, Kind: Kind, Capabilities: &harness.Capabilities{EventKeys: true}}
	for _, ev := range cfg.Events {
		t.events[ev.Name] = ev
		t.info.Operations = append(t.info.Operations, harness.Operation{Name: ev.Name, Mutating: !ev.Safe, Inputs: ev.Inputs})
	}
	return t
}

// Info implements harness.Target.
func (t *Target) Info() harness.TargetInfo { return t.info }

// BaseURL is the handler's URL, where an http read-back is taken.
func (t *Target) BaseURL() string {
	if b, ok := t.inner.(interface{ BaseURL() string }); ok {
		return b.BaseURL()
	}
	return ""
}

// Supports implements harness.Target: what the wrapped HTTP target
// supports (proxy, client and downstream faults; crashes when started by
// the harness).
func (t *Target) Supports(f faults.Fault) bool { return t.inner.Supports(f) }

// Close stops the proxy and the handler's process, if the harness started
// it.
func (t *Target) Close() error { return t.inner.Close() }

// Kill implements harness.Crasher.
func (t *Target) Kill() error {
	c, ok := t.inner.(harness.Crasher)
	if !ok {
		return errors.New("webhook target " + t.cfg.Name + ": cannot be killed")
	}
	return c.Kill()
}

// Restart implements harness.Crasher.
func (t *Target) Restart(ctx context.Context) error {
	c, ok := t.inner.(harness.Crasher)
	if !ok {
		return errors.New("webhook target " + t.cfg.Name + ": cannot be restarted")
	}
	return c.Restart(ctx)
}

// Call implements harness.Target: one signed delivery of the call's event.
func (t *Target) Call(ctx context.Context, c harness.Call) harness.Reply {
	t.mu.Lock()
	t.inflight++
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if t.inflight--; t.inflight == 0 {
			t.open = 0
		}
		t.mu.Unlock()
	}()
	dc, err := t.render(c, t.cfg.Signature.Secret)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	return t.inner.Call(ctx, dc)
}

// BadSignature delivers the call signed with the wrong secret, in the
// right format: a handler must refuse it with a 4xx, cause no effect, and
// still process the genuine delivery of the same event id afterwards.
func (t *Target) BadSignature(ctx context.Context, c harness.Call) harness.Reply {
	if t.cfg.Signature.Scheme == SchemeNone {
		return harness.Reply{Outcome: harness.Fail, Error: "the target's deliveries are not signed (scheme none)"}
	}
	dc, err := t.render(c, wrongSecret(t.cfg.Signature.Secret))
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	return t.inner.Call(ctx, dc)
}

// Burst implements harness.Burster: n copies of one signed delivery,
// released together (concurrent redeliveries).
func (t *Target) Burst(ctx context.Context, c harness.Call, n int) []harness.Reply {
	b, ok := t.inner.(harness.Burster)
	dc, err := t.render(c, t.cfg.Signature.Secret)
	if !ok || err != nil {
		msg := "the wrapped target cannot send bursts"
		if err != nil {
			msg = err.Error()
		}
		out := make([]harness.Reply, n)
		for i := range out {
			out[i] = harness.Reply{Outcome: harness.Fail, Error: msg}
		}
		return out
	}
	return b.Burst(ctx, dc, n)
}

// OutOfOrder delivers calls in the reverse of the order given, after giving
// their events increasing {{created}} times in the order given: what a
// provider does when a later event overtakes an earlier one. The replies
// are in the order of calls. The harness has no probe for it yet; see the
// webhook.out-of-order check proposed with this adapter.
func (t *Target) OutOfOrder(ctx context.Context, calls []harness.Call) []harness.Reply {
	for _, c := range calls {
		t.createdAt(c.Key)
	}
	out := make([]harness.Reply, len(calls))
	for i := len(calls) - 1; i >= 0; i-- {
		out[i] = t.Call(ctx, calls[i])
	}
	return out
}

// createdAt returns the {{created}} time of an event id, assigning the next
// one the first time: the clock's Unix time, kept strictly increasing so
// that events made one after the other in one second still have an
// order; an event first delivered while another delivery is under way
// (distinct events sent at once) shares the second of the last one made,
// as events a provider makes together do.
func (t *Target) createdAt(key string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ts, ok := t.created[key]; ok {
		return ts
	}
	if t.inflight > 1 && t.open != 0 {
		t.created[key] = t.open
		return t.open
	}
	ts := max(t.cfg.Now().Unix(), t.last+1)
	if t.inflight > 0 && t.open == 0 {
		t.open = ts
	}
	t.last = ts
	t.created[key] = ts
	return ts
}

// render turns the call into the wrapped target's call: the body, headers
// and signature rendered, passed in as internal inputs.
func (t *Target) render(c harness.Call, secret string) (harness.Call, error) {
	ev, ok := t.events[c.Operation]
	if !ok {
		return c, fmt.Errorf("unknown event %s", c.Operation)
	}
	vars := c.Vars()
	vars["created"] = strconv.FormatInt(t.createdAt(c.Key), 10)
	body, err := harness.Expand(ev.Body, vars)
	if err != nil {
		return c, fmt.Errorf("event %s: body: %w", ev.Name, err)
	}
	in := maps.Clone(c.Inputs)
	if in == nil {
		in = map[string]string{}
	}
	in[inBody] = body
	in[inKey] = c.Key
	in[inSig] = t.cfg.Signature.Sign(secret, []byte(body), t.cfg.Now())
	for i, name := range slices.Sorted(maps.Keys(ev.Headers)) {
		v, err := harness.Expand(ev.Headers[name], vars)
		if err != nil {
			return c, fmt.Errorf("event %s: header %s: %w", ev.Name, name, err)
		}
		in[inHdr+strconv.Itoa(i)] = v
	}
	c.Inputs = in
	c.Key = "" // the event id travels in the payload, not in Idempotency-Key
	return c, nil
}

// Down implements harness.Watched: the inner target's, when it can tell.
func (t *Target) Down() string {
	if w, ok := t.inner.(harness.Watched); ok {
		return w.Down()
	}
	return ""
}
