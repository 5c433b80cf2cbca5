package config

import "time"

// File is an idemcheck configuration. Parse and Load return it validated
// and with every default applied, so consumers never look for zero values.
//
// Optional sections that are absent stay nil (Seed, Fakes.Payments,
// Target.Start, Target.DryRun and the per-operation overrides); a section
// written with nothing under it, such as "payments:", is present with its
// defaults.
//
// Top-level keys that start with "x-" are ignored, as in Docker Compose
// files, so that they can hold YAML anchors for the rest of the file to
// use:
//
//	x-op: &json-post {mutating: true, method: POST, headers: {Content-Type: application/json}}
//	targets:
//	  - name: shop
//	    operations:
//	      - {<<: *json-post, name: charge, path: /charges, body: '...'}
type File struct {
	// Version is the version of the configuration format. Required; only
	// version 1 exists.
	Version int `yaml:"version"`
	// Seed, when set, feeds every random choice of a run, so that the run
	// can be replayed. When nil the harness picks one and reports it.
	Seed *uint64 `yaml:"seed,omitempty"`
	// Fakes configures the downstream fakes the targets call.
	Fakes Fakes `yaml:"fakes,omitempty"`
	// Targets are the systems under test. Required: at least one, and
	// names are unique.
	Targets []Target `yaml:"targets"`
	// Checks selects which checks run; by default all of them.
	Checks Checks `yaml:"checks,omitempty"`
	// Faults are the faults to inject. Absent means DefaultFaults; an empty
	// list ("faults: []") means none, so only fault-free checks run.
	Faults []FaultSpec `yaml:"faults"`
	// Retry is how the harness retries an intent, like a careful client.
	Retry Retry `yaml:"retry"`

	name string         // file name given to Parse
	pos  map[string]pos // position of every decoded value, by path
}

// Fakes configures the downstream fakes. A fake that is nil is not started.
type Fakes struct {
	// Payments is a Stripe-like payments API; its base URL is available to
	// the targets as {{fakes.payments.url}}.
	Payments *Payments `yaml:"payments,omitempty"`
	// Email is an email provider with a SendGrid-like HTTP send API (and
	// SMTP); the API's base URL is available as {{fakes.email.url}}.
	Email *Email `yaml:"email,omitempty"`
}

// Email configures the email fake.
type Email struct {
	// HonourKeys says whether the HTTP send API de-duplicates sends that
	// carry the same Idempotency-Key. Default true.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
}

// Payments configures the payments fake.
type Payments struct {
	// HonourKeys says whether the fake de-duplicates requests that carry
	// the same Idempotency-Key, as the real service does. Default true;
	// false models a downstream that does not, to see whether the target
	// copes.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
}

// Target is one system under test and the operations it offers.
type Target struct {
	// Name identifies the target in reports and on the command line.
	// Required: lower-case letters, digits, '.', '_' and '-', starting with
	// a letter or digit.
	Name string `yaml:"name"`
	// Kind is the adapter that reaches the target: "http" (a server) or
	// "cli" (a command-line tool, run once per call). Required.
	Kind string `yaml:"kind"`
	// URL is the base URL of an http target, e.g.
	// "http://127.0.0.1:{{port}}". Required for http. Its host must be
	// loopback unless Remote is set; {{port}} needs Start.
	URL string `yaml:"url,omitempty"`
	// Start, when set, is how the harness starts (and restarts) the target
	// itself. Without it, the target must already be running.
	Start *Start `yaml:"start,omitempty"`
	// KeyHeader is the request header that carries the idempotency key.
	// Default DefaultKeyHeader.
	KeyHeader string `yaml:"key_header,omitempty"`
	// Effect is where a reply says what it did (created, noop, ...).
	// Default: the JSON field DefaultEffectJSON.
	Effect Locator `yaml:"effect,omitempty"`
	// Identity is where a reply names the result, to compare replays.
	// Default: the JSON field DefaultIdentityJSON.
	Identity Locator `yaml:"identity,omitempty"`
	// DryRun is how the target is asked for a dry run; nil means it has
	// none.
	DryRun *DryRun `yaml:"dry_run,omitempty"`
	// Timeout bounds each attempt. Zero or absent means DefaultTimeout.
	Timeout Duration `yaml:"timeout,omitempty"`
	// Operations are what the harness calls. Required: at least one, and
	// names are unique within the target.
	Operations []Operation `yaml:"operations"`
	// Remote allows a URL whose host is not loopback. idemcheck sends
	// duplicate and faulty requests on purpose, so this is opt-in.
	Remote bool `yaml:"allow_remote,omitempty"`

	// The fields below are for cli targets.

	// Command is a cli target's argv prefix, e.g. ["./ordertool",
	// "--store", "jsonl"]: every call runs it with the operation's args
	// appended. Required for cli. It may use {{port}}, {{state_dir}} and
	// {{fakes.NAME.url}}, as Env and Dir may.
	Command []string `yaml:"command,omitempty,flow"`
	// Env holds variables added to the tool's environment.
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the tool's working directory; empty means the current one.
	Dir string `yaml:"dir,omitempty"`
	// KeyFlag is the flag that carries the idempotency key; a call with a
	// key appends it and the key as two arguments. Default DefaultKeyFlag.
	KeyFlag string `yaml:"key_flag,omitempty"`
	// DryRunFlag asks the tool for a dry run. Default DefaultDryRunFlag;
	// written as "" it says that the tool has none.
	DryRunFlag *string `yaml:"dry_run_flag,omitempty"`
	// RetryExitCodes are the exit codes that mean "a temporary failure,
	// retry with the same key" (the outcome is unknown, as for an HTTP
	// 5xx). Default DefaultRetryExitCodes; if written, not empty.
	RetryExitCodes []int `yaml:"retry_exit_codes,omitempty,flow"`
}

// Start is a command that starts a target. The harness runs it in its own
// process group, so that it can kill and restart the whole target.
type Start struct {
	// Command is the program and its arguments. Required, non-empty. It may
	// use {{port}}, {{state_dir}} and {{fakes.payments.url}}.
	Command []string `yaml:"command,flow"`
	// Env holds extra environment variables; values may use placeholders
	// as Command does.
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the working directory; empty means the current one.
	Dir string `yaml:"dir,omitempty"`
	// Ready is how the harness knows that the target is up.
	Ready Ready `yaml:"ready"`
}

// Ready is a readiness probe: an HTTP GET that must answer 2xx.
type Ready struct {
	// Path is requested under the target's URL. Default DefaultReadyPath.
	Path string `yaml:"path"`
	// Timeout bounds the wait for readiness. Default DefaultReadyTimeout.
	Timeout Duration `yaml:"timeout"`
}

// Locator says where a value is in a reply: a field of the JSON body, given
// as a dotted path such as "data.id", or a response header. At most one of
// the two is set.
type Locator struct {
	JSON   string `yaml:"json,omitempty"`
	Header string `yaml:"header,omitempty"`
}

// DryRun says how a target is asked for a dry run: with a query parameter
// or with a header, set to Value. Exactly one of Query and Header is set.
type DryRun struct {
	Query  string `yaml:"query,omitempty"`
	Header string `yaml:"header,omitempty"`
	// Value is the parameter's or header's value. Default
	// DefaultDryRunValue.
	Value string `yaml:"value"`
}

// Operation is one named request a target accepts.
type Operation struct {
	// Name identifies the operation within its target. Required, unique.
	Name string `yaml:"name"`
	// Mutating says whether the operation changes state. Required: the
	// harness cannot guess, and the checks differ (a safe operation must
	// cause no effect at all).
	Mutating *bool `yaml:"mutating"`
	// Method is the HTTP method; GET, POST, PUT, PATCH or DELETE. Required.
	Method string `yaml:"method,omitempty"`
	// Path is appended to the target's URL; it starts with "/". Required.
	Path string `yaml:"path,omitempty"`
	// Headers are sent with every attempt.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Body is the request body.
	Body string `yaml:"body,omitempty"`
	// Inputs are the values the harness generates for {{input.NAME}}.
	Inputs map[string]Input `yaml:"inputs,omitempty"`
	// DryRun, Effect and Identity override the target's settings for this
	// operation when set.
	DryRun   *DryRun  `yaml:"dry_run,omitempty"`
	Effect   *Locator `yaml:"effect,omitempty"`
	Identity *Locator `yaml:"identity,omitempty"`
	// Args are a cli operation's arguments, appended to the target's
	// command; they may use {{key}}, {{marker}} and {{input.NAME}}.
	// Required for cli (instead of method and path).
	Args []string `yaml:"args,omitempty,flow"`
}

// Input generates the values of one {{input.NAME}} placeholder. Exactly
// one of Int, Choice and String is set.
type Input struct {
	// Int is [min, max], both included.
	Int []int `yaml:"int,omitempty,flow"`
	// Choice lists the values to pick from; at least two distinct ones,
	// so that the harness can send the same key with a changed payload.
	Choice []string `yaml:"choice,omitempty,flow"`
	// String generates random strings.
	String *StringGen `yaml:"string,omitempty"`
}

// StringGen generates a random string: Prefix followed by Length random
// lower-case letters and digits.
type StringGen struct {
	Prefix string `yaml:"prefix,omitempty"`
	// Length is 1 to 64. Zero or absent means DefaultStringLength.
	Length int `yaml:"length"`
}

// Checks selects checks by id (see KnownChecks): Only runs just the listed
// ones, Skip runs all but the listed ones. At most one of the two is set.
type Checks struct {
	Only []string `yaml:"only,omitempty,flow"`
	Skip []string `yaml:"skip,omitempty,flow"`
}

// FaultSpec names a fault to inject (see KnownFaults) and its settings.
//
// In YAML it is either a plain name ("lost-response") or a mapping with a
// name and settings ({name: client-timeout, timeout: 300ms}). The settings
// are kept as YAML decoded them, for the fault registry to decode once it
// knows the fault's type; it can report problems in them with File.Errorf
// and the path "faults[i].KEY".
type FaultSpec struct {
	Name     string
	Settings map[string]any
}

// MarshalYAML writes a fault the way it is read: a plain name when it has
// no settings, a mapping otherwise.
func (f FaultSpec) MarshalYAML() (any, error) {
	if len(f.Settings) == 0 {
		return f.Name, nil
	}
	m := make(map[string]any, len(f.Settings)+1)
	for k, v := range f.Settings {
		m[k] = v
	}
	m["name"] = f.Name
	return m, nil
}

// Retry is the retry policy the harness follows for every intent.
type Retry struct {
	// MaxAttempts is 2 to 50. Zero or absent means DefaultMaxAttempts.
	MaxAttempts int `yaml:"max_attempts"`
	// Backoff is the pause between attempts. Zero or absent means
	// DefaultBackoff.
	Backoff Duration `yaml:"backoff"`
	// StuckWait bounds how long "in progress" answers (409, 425, 429) are
	// waited out before an intent is called stuck. Default DefaultStuckWait.
	StuckWait Duration `yaml:"stuck_wait,omitempty"`
	// Burst is how many same-key copies concurrent.duplicates releases
	// together. Default DefaultBurst.
	Burst int `yaml:"burst,omitempty"`
}

// Defaults that Parse fills in for fields left out.
const (
	DefaultKeyHeader    = "Idempotency-Key"
	DefaultEffectJSON   = "effect"
	DefaultIdentityJSON = "data.id"
	DefaultTimeout      = 10 * time.Second
	DefaultReadyPath    = "/"
	DefaultReadyTimeout = 10 * time.Second
	DefaultDryRunValue  = "true"
	DefaultStringLength = 8
	DefaultMaxAttempts  = 5
	DefaultBackoff      = 20 * time.Millisecond
	DefaultStuckWait    = time.Second
	DefaultBurst        = 20
	DefaultKeyFlag      = "--idempotency-key"
	DefaultDryRunFlag   = "--dry-run"
)

// DefaultRetryExitCodes are a cli target's default RetryExitCodes:
// EX_TEMPFAIL from sysexits.h.
var DefaultRetryExitCodes = []int{75}

// Limits that Parse enforces.
const (
	supportedVersion = 1
	maxStringLength  = 64
	minMaxAttempts   = 2 // a retry needs a second attempt
	maxMaxAttempts   = 50
)

// KnownChecks are the check ids that Checks.Only and Checks.Skip may name.
// It is a variable so that a program embedding idemcheck can add its own
// checks before calling Parse.
var KnownChecks = []string{
	"retry.sequential",
	"retry.after-fault",
	"concurrent.duplicates",
	"crash.recovery",
	"downstream.propagation",
	"key.mismatch",
	"key.required",
	"key.distinct",
	"replay.consistent",
	"effect.field",
	"dryrun",
	"safe.readonly",
	"exactly-once",
	"webhook.signature",
	"webhook.out-of-order",
}

// KnownFaults are the fault names that File.Faults may use. It is a
// variable so that a program can register more faults before calling
// Parse.
var KnownFaults = []string{
	"client-timeout", "503-before", "lost-response", "reset", "latency", "hang",
	"downstream-503", "downstream-503-after", "downstream-reset-after", "downstream-timeout-after",
	"crash-before-effect", "crash-after-effect", "crash-after-reply",
}

// DefaultFaults are the faults injected when the file has no faults
// section.
var DefaultFaults = []string{
	"client-timeout", "503-before", "lost-response", "reset", "hang",
	"downstream-503", "downstream-503-after", "downstream-reset-after",
	"crash-before-effect", "crash-after-effect", "crash-after-reply",
}

// The target kinds this version supports.
const (
	KindHTTP = "http"
	KindCLI  = "cli"
)

var kinds = []string{KindHTTP, KindCLI}

// fakeNames are the fakes a file may configure, in the order of Fakes.
var fakeNames = []string{"payments", "email"}

// methods are the HTTP methods an operation may use.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
