package config

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/harness"
)

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
	// Bursts says how many same-key bursts concurrent.duplicates sends per
	// mutating operation, and how many copies each (see bursts.go); nil
	// means the defaults.
	Bursts *Bursts `yaml:"bursts,omitempty"`

	name   string            // file name given to Parse
	digest string            // SHA-256 of its bytes, in hex
	base   string            // the directory relative paths are taken from
	env    map[string]string // the values of the {{env.NAME}} it uses
	pos    map[string]pos    // position of every decoded value, by path
}

// Fakes configures the downstream fakes. A fake that is nil is not started.
type Fakes struct {
	// Payments is a Stripe-like payments API; its base URL is available to
	// the targets as {{fakes.payments.url}}.
	Payments *Payments `yaml:"payments,omitempty"`
	// Email is an email provider with a SendGrid-like HTTP send API (and
	// SMTP); the API's base URL is available as {{fakes.email.url}}.
	Email *Email `yaml:"email,omitempty"`
	// Webhooks is a webhook sink: it records every delivery POSTed under
	// /hooks/…, for a target that notifies others by webhook; its base URL
	// is available as {{fakes.webhooks.url}}.
	Webhooks *Webhooks `yaml:"webhooks,omitempty"`
}

// Webhooks configures the webhook sink fake.
type Webhooks struct {
	// HonourKeys says whether the sink de-duplicates deliveries that carry
	// the same key in KeyHeader, as a careful receiver does. Default true;
	// false records every delivery.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
	// KeyHeader is the header a delivery's idempotency key is read from.
	// Default DefaultKeyHeader.
	KeyHeader string `yaml:"key_header,omitempty"`
	// Listen fixes the sink's address (see Payments.Listen).
	Listen string `yaml:"listen,omitempty"`
}

// Email configures the email fake.
type Email struct {
	// HonourKeys says whether the HTTP send API de-duplicates sends that
	// carry the same Idempotency-Key. Default true.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
	// Listen fixes the HTTP send API's address, SMTP the SMTP server's
	// (see Payments.Listen).
	Listen string `yaml:"listen,omitempty"`
	SMTP   string `yaml:"smtp,omitempty"`
}

// Payments configures the payments fake.
type Payments struct {
	// HonourKeys says whether the fake de-duplicates requests that carry
	// the same Idempotency-Key, as the real service does. Default true;
	// false models a downstream that does not, to see whether the target
	// copes.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
	// Listen fixes the fake's address, a loopback host:port such as
	// "127.0.0.1:4242", so that a service started by hand can be pointed
	// at it; empty means a free port, different every run. A fixed
	// address already taken stops the run before it starts (exit 2), and
	// the targets of a file with fixed addresses are tested one at a time.
	Listen string `yaml:"listen,omitempty"`
}

// Target is one system under test and the operations it offers. One
// struct serves every kind, so that a misspelt field is reported alike
// whatever the kind; Parse refuses a field that belongs to another kind
// than the target's, and leaves the fields of other kinds empty.
type Target struct {
	// Name identifies the target in reports and on the command line.
	// Required: lower-case letters, digits, '.', '_' and '-', starting with
	// a letter or digit.
	Name string `yaml:"name"`
	// Kind is the adapter that reaches the target: "http" (a server),
	// "cli" (a command-line tool, run once per call), "webhook" (a webhook
	// handler, to which idemcheck delivers signed events) or "container"
	// (a server in a Docker container). Required.
	Kind string `yaml:"kind"`
	// URL is the base URL of an http or webhook target, e.g.
	// "http://127.0.0.1:{{port}}"; it may use {{env.NAME}}. Required for
	// http and webhook. Its host
	// must be loopback unless Remote is set; {{port}} needs Start. For a
	// container it defaults to DefaultContainerURL and must be loopback.
	URL string `yaml:"url,omitempty"`
	// Start, when set, is how the harness starts (and restarts) an http or
	// webhook target itself. Without it, the target must already be
	// running.
	Start *Start `yaml:"start,omitempty"`
	// KeyHeader is the request header that carries the idempotency key
	// (http and container). Default DefaultKeyHeader.
	KeyHeader string `yaml:"key_header,omitempty"`
	// KeyFormat is the shape of the keys idemcheck sends (every kind):
	// "token" (the default, idk- and 16 hex digits), "uuid" (a version 4
	// UUID, for a target that validates its keys), or a template such as
	// "order-{{hex 16}}" (see package keys).
	KeyFormat string `yaml:"key_format,omitempty"`
	// Effect is where a reply says what it did (created, noop, ...); not
	// for webhook. Default: the JSON field DefaultEffectJSON.
	Effect Locator `yaml:"effect,omitempty"`
	// Identity is where a reply names the result, to compare replays.
	// Default: the JSON field DefaultIdentityJSON.
	Identity Locator `yaml:"identity,omitempty"`
	// DryRun is how the target is asked for a dry run (http and
	// container); nil means it has none.
	DryRun *DryRun `yaml:"dry_run,omitempty"`
	// Timeout bounds each attempt. Zero or absent means DefaultTimeout.
	Timeout Duration `yaml:"timeout,omitempty"`
	// Operations are what the harness calls. Required for http, cli and
	// container targets: at least one, and names are unique within the
	// target. (A webhook target has Events instead.)
	Operations []Operation `yaml:"operations,omitempty"`
	// Remote allows a URL whose host is not loopback. idemcheck sends
	// duplicate and faulty requests on purpose, so this is opt-in.
	Remote bool `yaml:"allow_remote,omitempty"`
	// Limits bound the requests sent to the target: a budget and a rate
	// (http targets). Defaults apply with allow_remote.
	Limits *Limits `yaml:"limits,omitempty"`
	// Observe lists sources that count the target's effects in its own
	// data (http and container targets), beside or instead of the fakes.
	Observe []Observer `yaml:"observe,omitempty"`
	// Replicas is how many instances of an http target idemcheck starts
	// (see replicas.go): each on a {{port}} of its own, all with one
	// state directory and the same fakes. 0 or 1 means one.
	Replicas int `yaml:"replicas,omitempty"`
	// Callers are two or more callers' credentials (http and container
	// targets; see callers.go): key.scope then sends one key from two
	// callers.
	Callers []Caller `yaml:"callers,omitempty"`
	// Profile is a published convention the target declares it follows
	// and asks to be held to (http and container targets; see
	// profile.go): "ietf-draft" enables the ietf.draft check. Empty: none.
	Profile string `yaml:"profile,omitempty"`
	// FreshTrials starts the target (and its fakes) afresh for every
	// generated trial (every kind). By default the trials share one
	// running target, told apart by their keys and markers, and restart
	// it only when a trial asks; a target whose state carries from one
	// key to another (a rate limit, a quota, a global counter) needs a
	// fresh one per trial.
	FreshTrials bool `yaml:"fresh_trials,omitempty"`
	// TrialWorkers is how many generated trials run at once on the
	// target (every kind), 1 to 64. Default: 4 for a target idemcheck
	// starts (each worker on an instance of its own, so a seed finds the
	// same counterexample whatever the timing), 1 for one reached at a
	// URL it was not started from (more then share its one instance).
	TrialWorkers int `yaml:"trial_workers,omitempty"`

	// The fields below are for cli targets.

	// Command is a cli target's argv prefix, e.g. ["./ordertool",
	// "--store", "jsonl"]: every call runs it with the operation's args
	// appended. Required for cli. It may use {{port}}, {{state_dir}} and
	// {{fakes.NAME.url}}, as Env and Dir may.
	Command []string `yaml:"command,omitempty,flow"`
	// Env holds variables added to a cli tool's or a container's
	// environment; values may use the placeholders Command may, and
	// {{env.NAME}}, a variable of idemcheck's own environment.
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the tool's working directory, relative to the configuration
	// file's directory; empty means the one idemcheck runs in. A relative
	// program in Command is taken from it.
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

	// The fields below are for webhook targets, which also take url,
	// start, identity, timeout and allow_remote as an http target does.

	// Signature says how idemcheck signs each delivery. Required for
	// webhook.
	Signature *Signature `yaml:"signature,omitempty"`
	// IDHeader, if set, also carries the event id in this header (Svix's
	// webhook-id, GitHub's X-GitHub-Delivery); otherwise it is only where
	// the event's body puts {{key}}.
	IDHeader string `yaml:"id_header,omitempty"`
	// Events are the kinds of event delivered to the handler. Required for
	// webhook: at least one, and names are unique within the target.
	Events []Event `yaml:"events,omitempty"`

	// The fields below are for container targets, which also take the
	// fields of an http target but start (url, key_header, effect,
	// identity, dry_run, timeout, operations) and env.

	// Image is an image that exists in the Docker engine, such as
	// "shop:1.4": nothing is pulled. Exactly one of Image and Build is set.
	Image string `yaml:"image,omitempty"`
	// Build builds the image FROM scratch from a static Linux binary when
	// the target starts (kept if already built from the same binary).
	Build *Build `yaml:"build,omitempty"`
	// Cmd is given to the image's entrypoint. It may use {{port}},
	// {{state_dir}} (the state directory, mounted at /state in the
	// container), {{fakes.NAME.url}} and {{fakes.NAME.smtp}}, as Env may.
	Cmd []string `yaml:"cmd,omitempty,flow"`
	// Port is the port the server listens on, such as "8080" or
	// "8080/tcp", for an image that cannot be told where to listen; empty
	// (the usual) means a free port, {{port}}, that Cmd or Env passes on.
	// The container uses the host's network, so the port must be free.
	Port string `yaml:"port,omitempty"`
	// User runs the server as "uid:gid"; empty means idemcheck's own, so
	// that it can remove what the target wrote in the state directory.
	User string `yaml:"user,omitempty"`
	// Ready is how the harness knows that the container is up: any HTTP
	// answer to a GET of Path. Defaults as for Start.Ready.
	Ready *Ready `yaml:"ready,omitempty"`

	// The fields below are for mcp targets: an MCP server reached over
	// stdio (Command, Env, Dir: idemcheck starts a process per session)
	// or streamable HTTP (URL, and Start to have idemcheck start it).

	// KeyArgument names the tool argument that carries the idempotency
	// key; "" means the tools take none. Nil: guessed per tool from its
	// input schema (the first of idempotency_key, idempotencyKey and
	// request_id it has).
	KeyArgument *string `yaml:"key_argument,omitempty"`
	// KeyMeta names the field of the call's _meta that carries the key
	// instead (e.g. "idempotency-key").
	KeyMeta string `yaml:"key_meta,omitempty"`
	// DryRunArgument names the boolean tool argument that asks for a dry
	// run; "" means none. Nil: guessed from the schema (dry_run).
	DryRunArgument *string `yaml:"dry_run_argument,omitempty"`
	// Tools lists the tools to test, with overrides of what tools/list
	// says; absent means every tool the server lists.
	Tools []MCPTool `yaml:"tools,omitempty"`
}

// MCPTool is one tool of an mcp target, as tools/list names it, with
// what the configuration overrides.
type MCPTool struct {
	// Name is the tool's name. Required.
	Name string `yaml:"name"`
	// Mutating overrides the tool's annotations (a tool is mutating
	// unless annotated readOnlyHint: true); a disagreement is reported.
	Mutating *bool `yaml:"mutating,omitempty"`
	// Marker is the string argument {{marker}} goes into; default the
	// first free-text string property of the input schema.
	Marker string `yaml:"marker,omitempty"`
	// KeyArgument, KeyMeta and DryRunArgument override the target's.
	KeyArgument    *string `yaml:"key_argument,omitempty"`
	KeyMeta        string  `yaml:"key_meta,omitempty"`
	DryRunArgument *string `yaml:"dry_run_argument,omitempty"`
	// Arguments are fixed arguments merged over the generated ones; a
	// string may use {{marker}} and {{input.NAME}}.
	Arguments map[string]any `yaml:"arguments,omitempty"`
	// Inputs override the values generated from the schema, by argument
	// name (dotted for a nested object's property).
	Inputs map[string]Input `yaml:"inputs,omitempty"`
	// Effect and Identity override the target's.
	Effect   *Locator `yaml:"effect,omitempty"`
	Identity *Locator `yaml:"identity,omitempty"`
}

// Signature says how a webhook target's deliveries are signed: with
// HMAC-SHA256 under Secret, in Header, in the format of Scheme.
type Signature struct {
	// Secret is the shared signing secret, written as is (no environment
	// expansion). Required unless Scheme is "none". Errors never show it.
	Secret Secret `yaml:"secret,omitempty"`
	// Header carries the signature. Default DefaultSignatureHeader.
	Header string `yaml:"header,omitempty"`
	// Scheme is one of SignatureSchemes: "stripe" (t=TIMESTAMP,v1=HEX, the
	// default), "hex" (Prefix and the hex HMAC of the body, as GitHub's
	// X-Hub-Signature-256 with prefix "sha256="), "base64" (as Shopify's
	// X-Shopify-Hmac-Sha256) or "none" (unsigned).
	Scheme string `yaml:"scheme,omitempty"`
	// Prefix starts a "hex" or "base64" signature, such as "sha256=".
	Prefix string `yaml:"prefix,omitempty"`
}

// String describes the signature without its secret, so that a Target
// printed with any verb cannot show it.
func (s Signature) String() string {
	return fmt.Sprintf("{secret:%s header:%s scheme:%s prefix:%s}", s.Secret, s.Header, s.Scheme, s.Prefix)
}

// Secret is a signing secret. It formats as "[redacted]" with the fmt
// verbs, so that printing a File or a Target cannot leak it; convert it
// to a string to use it.
type Secret string

// String returns "[redacted]", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString redacts the secret for %#v too.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// Event is one kind of event delivered to a webhook target: a POST of
// Body to Path, signed. Every delivery of an intent, redeliveries
// included, carries the same event id, {{key}}.
type Event struct {
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
	Inputs map[string]Input `yaml:"inputs,omitempty"`
}

// Build says how to build a container target's image FROM scratch.
type Build struct {
	// Binary is the path of a static Linux binary (for Go: CGO_ENABLED=0
	// GOOS=linux go build), relative to the configuration file's
	// directory; it is the image's only file and its entrypoint. Required.
	Binary string `yaml:"binary"`
	// Name is the image's name. Default "idemcheck-" and the target's name.
	Name string `yaml:"name,omitempty"`
	// Tag is the image's tag. Default DefaultImageTag.
	Tag string `yaml:"tag,omitempty"`
}

// Start is a command that starts a target. The harness runs it in its own
// process group, so that it can kill and restart the whole target.
type Start struct {
	// Command is the program and its arguments. Required, non-empty. It may
	// use {{port}}, {{state_dir}} and {{fakes.payments.url}}. A program
	// given as a relative path (./server) is taken from Dir, else from the
	// configuration file's directory.
	Command []string `yaml:"command,flow"`
	// Env holds extra environment variables; values may use placeholders
	// as Command does, and {{env.NAME}}, a variable of idemcheck's own
	// environment, never printed.
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the working directory, relative to the configuration file's
	// directory; empty means the one idemcheck runs in.
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
	// Headers are sent with every attempt. Values may use {{env.NAME}}, a
	// variable of idemcheck's own environment; it and the values of
	// credential headers (Authorization, Cookie, *-Token, *-Key) are never
	// printed.
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
	// LateKeys is how many intents with fresh keys retry.late sends
	// between an intent and its late retry; LateDelay how long after
	// the intent the retry comes. Zero means the harness's defaults
	// (harness.DefaultLateKeys, harness.DefaultLateDelay); see late.go.
	LateKeys  int      `yaml:"late_keys,omitempty"`
	LateDelay Duration `yaml:"late_delay,omitempty"`
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

	// DefaultSignatureHeader and DefaultSignatureScheme are a webhook
	// target's defaults, those of targets/webhook.
	DefaultSignatureHeader = "Idemcheck-Signature"
	DefaultSignatureScheme = "stripe"

	// DefaultContainerURL is a container target's default URL: the
	// container uses the host's network and listens on loopback.
	DefaultContainerURL = "http://127.0.0.1:{{port}}"
	// DefaultImagePrefix starts the default name of a built image, so
	// that it cannot replace an image of the user's own.
	DefaultImagePrefix = "idemcheck-"
	// DefaultImageTag is the default tag of a built image.
	DefaultImageTag = "latest"
)

// SignatureSchemes are the signature schemes of a webhook target.
var SignatureSchemes = []string{"stripe", "hex", "base64", "none"}

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

// KnownChecks are the check ids that Checks.Only and Checks.Skip may name:
// the harness's checks. It is a variable so that a program embedding
// idemcheck can add its own checks before calling Parse.
var KnownChecks = checkIDs()

func checkIDs() []string {
	var ids []string
	for _, c := range harness.Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

// KnownFaults are the fault names that File.Faults may use. It is a
// variable so that a program can register more faults before calling
// Parse.
var KnownFaults = []string{
	"client-timeout", "503-before", "lost-response", "reset", "latency", "hang",
	"downstream-503", "downstream-503-after", "downstream-reset-after", "downstream-timeout-after",
	"crash-before-effect", "crash-after-effect", "crash-after-reply", "client-disconnect",
}

// DefaultFaults are the faults injected when the file has no faults
// section.
var DefaultFaults = []string{
	"client-timeout", "503-before", "lost-response", "reset", "hang",
	"downstream-503", "downstream-503-after", "downstream-reset-after",
	"crash-before-effect", "crash-after-effect", "crash-after-reply", "client-disconnect",
}

// The target kinds this version supports.
const (
	KindHTTP      = "http"
	KindCLI       = "cli"
	KindMCP       = "mcp"
	KindWebhook   = "webhook"
	KindContainer = "container"
)

var kinds = []string{KindHTTP, KindCLI, KindWebhook, KindContainer, KindMCP}

// fakeNames are the fakes a file may configure, in the order of Fakes.
var fakeNames = []string{"payments", "email", "webhooks"}

// methods are the HTTP methods an operation may use.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// MaxTrialWorkers bounds trial_workers: each worker of a target that
// idemcheck starts runs an instance of its own.
const MaxTrialWorkers = 64
