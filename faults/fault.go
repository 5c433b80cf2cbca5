package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
)

// Fault is one kind of misbehaviour, with its settings decoded.
type Fault interface {
	// Name is the registered name, e.g. "lost-response".
	Name() string
}

// ProxyFault is a fault that acts in the HTTP fault proxy.
type ProxyFault interface {
	Fault
	// Intercept handles one exchange. It must end by calling exactly one
	// of ex.Respond or ex.Reset, after calling ex.Forward at most once.
	Intercept(ex Exchange)
}

// ClientFault is a fault that changes how the client waits for a reply.
type ClientFault interface {
	Fault
	// ClientTimeout is how long the client waits before giving up.
	ClientTimeout() time.Duration
}

// Waiting is a fault whose cost is a wait that the client or the proxy
// sits out: a client timeout, a hang, a delay. Within returns a copy of
// it whose wait is at most d (the fault itself, when its wait is already
// that short). Generated trials keep their pace with a fast target this
// way: what such a fault shows (the client gave up; the request came
// late) does not depend on the wait being long, only on the client giving
// up or the request arriving after its usual time.
type Waiting interface {
	Fault
	Within(d time.Duration) Fault
}

// DownstreamFault is a fault injected by the fakes into the target's own
// downstream calls.
type DownstreamFault interface {
	Fault
	// Rule returns the rule to arm in the fakes for the attempt that
	// carries marker.
	Rule(marker string) fakes.Rule
	// Ambiguous is true when the downstream effect may have happened
	// although the target saw a failure: only a key passed downstream
	// makes the target's retry safe then.
	Ambiguous() bool
}

// CrashPoint is the instant a crash fault kills the target.
type CrashPoint string

// The crash points.
const (
	// BeforeEffect: when the target's downstream call reaches the fake,
	// which drops it unrecorded.
	BeforeEffect CrashPoint = "before-effect"
	// AfterEffect: when the fake has recorded the effect, before its reply
	// reaches the target.
	AfterEffect CrashPoint = "after-effect"
	// AfterReply: when the target has replied, before the reply reaches
	// the client.
	AfterReply CrashPoint = "after-reply"
)

// CrashFault kills the target's process (SIGKILL to its process group) at a
// precise point, then the harness restarts it with the same environment and
// state directory before the next attempt. Only targets that the harness
// started itself can be crashed.
type CrashFault interface {
	Fault
	CrashPoint() CrashPoint
}

// Class says where a fault acts; the checks use it to decide which of them
// owns an intent.
type Class string

// The fault classes.
const (
	ClassClient              Class = "client"
	ClassProxy               Class = "proxy"
	ClassDownstream          Class = "downstream"
	ClassDownstreamAmbiguous Class = "downstream-ambiguous"
	ClassCrash               Class = "crash"
)

// ClassOf returns the class of f.
func ClassOf(f Fault) Class {
	switch x := f.(type) {
	case RedeliveryFault:
		return ClassRedelivery
	case CrashFault:
		return ClassCrash
	case DependencyFault:
		return ClassDependency
	case DownstreamFault:
		if x.Ambiguous() {
			return ClassDownstreamAmbiguous
		}
		return ClassDownstream
	case ClientFault:
		return ClassClient
	}
	return ClassProxy
}

// Upstream is the target's complete reply as the proxy received it.
type Upstream struct {
	Status int
	Header http.Header
	Body   []byte
}

// Exchange is one request passing through the Proxy, as a ProxyFault sees it.
type Exchange interface {
	// Request is the client's request (its body is consumed by Forward).
	Request() *http.Request
	// Forward sends the request to the target and reads its whole reply.
	// The target is never cancelled by the client giving up: it runs to the
	// end, as it would behind a load balancer that ignores client aborts.
	Forward() (*Upstream, error)
	// Respond writes a reply to the client.
	Respond(status int, header http.Header, body []byte)
	// Reset closes the client's connection without a reply.
	Reset()
	// ClientGone is closed when the client has gone away.
	ClientGone() <-chan struct{}
}

// Factory makes a fault with its default settings.
type Factory func() Fault

// Registry maps fault names to factories. It is a value, not a global: make
// one with NewRegistry or Builtin and pass it where it is needed.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a fault under name, replacing any earlier one.
func (r *Registry) Register(name string, f Factory) { r.factories[name] = f }

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New makes the fault registered under name and decodes settings (a JSON
// object, or nil for the defaults) into it. Unknown settings are errors.
// An error about one setting is a *SettingError that names it.
func (r *Registry) New(name string, settings map[string]any) (Fault, error) {
	f, ok := r.factories[name]
	if !ok {
		return nil, fmt.Errorf("unknown fault %q (known: %v)", name, r.Names())
	}
	fault := f()
	if len(settings) == 0 {
		return fault, nil
	}
	raw, err := json.Marshal(settings)
	if err != nil {
		return nil, blame(name, f, settings, err)
	}
	if err := decodeStrict(raw, fault); err != nil {
		return nil, blame(name, f, settings, err)
	}
	if v, ok := fault.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			var se *SettingError
			if !errors.As(err, &se) {
				se = &SettingError{Err: err}
			}
			se.Fault = name
			return nil, se
		}
	}
	return fault, nil
}

// Settings returns the names of the settings the fault registered under
// name takes, as a configuration writes them, sorted; nil for an unknown
// fault or one that takes none.
func (r *Registry) Settings(name string) []string {
	f, ok := r.factories[name]
	if !ok {
		return nil
	}
	return settingNames(f())
}

// SettingError is a fault's settings that cannot be used.
type SettingError struct {
	// Fault is the fault's registered name.
	Fault string
	// Setting names the setting to blame as a configuration writes it
	// ("delay"); empty when no one setting is.
	Setting string
	// Err says what is wrong with it.
	Err error
}

// Error implements error: "fault dep-stall: settings: delay: …".
func (e *SettingError) Error() string {
	if e.Setting == "" {
		return fmt.Sprintf("fault %s: settings: %v", e.Fault, e.Err)
	}
	return fmt.Sprintf("fault %s: settings: %s: %v", e.Fault, e.Setting, e.Err)
}

// Unwrap returns e.Err.
func (e *SettingError) Unwrap() error { return e.Err }

// invalid is a Validate error about one setting.
func invalid(setting, format string, args ...any) error {
	return &SettingError{Setting: setting, Err: fmt.Errorf(format, args...)}
}

// blame finds the setting that err, from decoding settings whole into
// the fault f makes, is about: it decodes each setting alone, in name
// order, and says what is wrong with the first that fails.
func blame(name string, f Factory, settings map[string]any, err error) error {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw, jerr := json.Marshal(map[string]any{k: settings[k]})
		if jerr != nil {
			return &SettingError{Fault: name, Setting: k, Err: jerr}
		}
		fault := f()
		derr := decodeStrict(raw, fault)
		if derr == nil {
			continue
		}
		var te *json.UnmarshalTypeError
		switch {
		case strings.HasPrefix(derr.Error(), "json: unknown field "):
			takes := "takes no settings"
			if names := settingNames(fault); len(names) > 0 {
				takes = "takes " + strings.Join(names, ", ")
			}
			derr = fmt.Errorf("unknown setting (%s %s)", name, takes)
		case errors.As(derr, &te):
			derr = fmt.Errorf("expected %s, got %s", typeWord(te.Type), describe(settings[k]))
		}
		return &SettingError{Fault: name, Setting: k, Err: derr}
	}
	return &SettingError{Fault: name, Err: err}
}

// settingNames returns the JSON names of the fields of the struct f
// points to, embedded structs' included, sorted.
func settingNames(f Fault) []string {
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			switch {
			case tag == "-":
			case sf.Anonymous && tag == "" && sf.Type.Kind() == reflect.Struct:
				walk(sf.Type)
			case tag != "":
				names = append(names, tag)
			case sf.IsExported():
				names = append(names, sf.Name)
			}
		}
	}
	if t := reflect.TypeOf(f); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		walk(t.Elem())
	}
	sort.Strings(names)
	return names
}

// typeWord names what a setting of type t must be.
func typeWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	}
	return "a " + t.String()
}

// describe says what a setting's value is, as a configuration wrote it.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case int, int64, uint64, int32:
		return fmt.Sprintf("integer %d", x)
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprintf("integer %d", int64(x))
		}
		return fmt.Sprintf("number %g", x)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprint(v)
}

// Builtin returns a registry holding every fault this package defines.
func Builtin() *Registry {
	r := NewRegistry()
	r.Register(NameClientTimeout, func() Fault { return &ClientTimeout{Timeout: Duration(100 * time.Millisecond)} })
	r.Register(NameUnavailableBefore, func() Fault { return &UnavailableBefore{} })
	r.Register(NameLostResponse, func() Fault { return &LostResponse{Status: http.StatusServiceUnavailable} })
	r.Register(NameReset, func() Fault { return &Reset{} })
	r.Register(NameLatency, func() Fault { return &Latency{Delay: Duration(100 * time.Millisecond)} })
	r.Register(NameHang, func() Fault { return &Hang{Timeout: Duration(100 * time.Millisecond)} })
	r.Register(NameDownstreamFailBefore, func() Fault { return &DownstreamFailBefore{} })
	r.Register(NameDownstreamFailAfter, func() Fault { return &DownstreamFailAfter{} })
	r.Register(NameDownstreamResetAfter, func() Fault { return &DownstreamResetAfter{} })
	r.Register(NameDownstreamTimeoutAfter, func() Fault { return &DownstreamTimeoutAfter{} })
	r.Register(NameCrashBeforeEffect, func() Fault { return &Crash{Point: BeforeEffect} })
	r.Register(NameCrashAfterEffect, func() Fault { return &Crash{Point: AfterEffect} })
	r.Register(NameCrashAfterReply, func() Fault { return &Crash{Point: AfterReply} })
	r.Register(NameClientDisconnect, func() Fault { return &ClientDisconnect{} })
	r.Register(NameDepError, func() Fault { return &DepError{} })
	r.Register(NameDepResetAfterCommit, func() Fault { return &DepResetAfterCommit{} })
	r.Register(NameDepStall, func() Fault { return &DepStall{Delay: Duration(time.Second)} })
	r.Register(NameDepRefuse, func() Fault { return &DepRefuse{Window: Duration(300 * time.Millisecond)} })
	r.Register(NameCrashBeforeCommit, func() Fault { return &Crash{Point: BeforeCommit} })
	r.Register(NameCrashAfterCommit, func() Fault { return &Crash{Point: AfterCommit} })
	return r
}

// Duration is a time.Duration that reads and writes as "250ms" in settings.
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration written as a string such as "250ms" or
// "10s" (see time.ParseDuration). A bare number is refused: "500" could
// mean milliseconds or seconds, and taken as nanoseconds a fault would do
// nothing at all.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var v any
		if json.Unmarshal(b, &v) != nil {
			v = string(b)
		}
		return fmt.Errorf(`expected a duration such as "250ms" or "10s", got %s`, describe(v))
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf(`invalid duration %q: write a number and a unit (ns, us, ms, s, m, h), such as "250ms" or "10s"`, s)
	}
	*d = Duration(v)
	return nil
}
