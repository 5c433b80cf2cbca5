package mcp

import (
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/harness"
)

// Kind is the kind of target this adapter reaches.
const Kind = "mcp"

// Defaults for Config.
const (
	DefaultEffectJSON   = "effect"
	DefaultIdentityJSON = "data.id"
	// DefaultStatusJSON is where a result may say which HTTP-like status
	// it stands for (409 "in progress", 503 "retry"), so that the harness
	// retries it as it would the HTTP answer.
	DefaultStatusJSON = "status"
	// DefaultReplayedJSON is where a result may say it is a replay.
	DefaultReplayedJSON = "replayed"
	DefaultMetaKey      = "idempotency-key"
	DefaultDryRunArg    = "dry_run"
	DefaultTimeout      = 10 * time.Second
	// MetaAttempt is the _meta field that carries the attempt id on every
	// tools/call, so that the stdio relay and the HTTP fault proxy know
	// which call a fault is for. Servers ignore _meta fields they do not
	// know.
	MetaAttempt = "io.idemcheck/attempt"
)

// KeyArgNames are the input-schema properties taken for the key argument,
// in this order, when the configuration does not say.
var KeyArgNames = []string{"idempotency_key", "idempotencyKey", "request_id"}

// keyWords are the normalised names (lower case, without '_', '-' and
// '.') of arguments that carry a key whatever else they are called.
var keyWords = []string{"idempotencykey", "idempotencytoken", "idempotencyid", "requestid", "clientrequestid", "clienttoken", "dedupkey", "dedupid", "deduplicationkey", "deduplicationid"}

// KeyLike reports whether an argument's name says it carries an
// idempotency key (idempotency_key, requestId, client_token, dedup-key…).
func KeyLike(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", ".", "").Replace(name))
	return strings.Contains(n, "idempotenc") || slices.Contains(keyWords, n)
}

// Where a key or a dry-run flag goes.
const (
	// InArgument: a tool argument.
	InArgument = "argument"
	// InMeta: a field of the call's _meta (keys only).
	InMeta = "meta"
	// InNone: the tool has none.
	InNone = "none"
)

// Placement says where a value goes in a tools/call: In is InArgument,
// InMeta or InNone ("" means: guess from the tool's input schema), Name
// the argument or _meta field.
type Placement struct {
	In   string
	Name string
}

// Tool overrides what discovery found for one tool; the zero value
// changes nothing.
type Tool struct {
	// Name is the tool's name in tools/list; it is also the operation's.
	Name string
	// Mutating overrides the annotations (readOnlyHint: true means safe).
	Mutating *bool
	// Key and DryRun override the target's placements.
	Key    *Placement
	DryRun *Placement
	// Marker is the string argument {{marker}} goes into; "" means the
	// first free-text string property of the schema.
	Marker string
	// Arguments are fixed arguments, merged over the generated ones. A
	// string may use {{marker}} and {{input.NAME}}.
	Arguments map[string]any
	// Inputs override the inputs generated from the schema, by property
	// name (dotted for nested objects: "address.city").
	Inputs map[string]harness.Input
	// Effect and Identity override the target's paths.
	Effect   string
	Identity string
}

// Config describes an MCP target: one of Command (stdio), URL
// (streamable HTTP) or Server (in-process) is set.
type Config struct {
	Name string
	// Command is the argv of a stdio server. Every session is its own
	// process, in its own process group.
	Command []string
	Env     map[string]string
	Dir     string
	// URL is the endpoint of a streamable HTTP server.
	URL string
	// Server is an in-process server, reached over in-memory pipes.
	Server *sdk.Server
	// Tools lists the tools to test, with overrides; empty means every
	// tool tools/list returns.
	Tools []Tool
	// Key and DryRun are the target's placements; a tool's override wins.
	Key    Placement
	DryRun Placement
	// Effect, Identity, Status and Replayed are dotted JSON paths in the
	// result's structuredContent (or its first text content, parsed as
	// JSON).
	Effect, Identity, Status, Replayed string
	// Timeout bounds each call that has no client fault.
	Timeout time.Duration
	// ByDelta says the target's effects are attributed by delta (it
	// declares a count observer): a mutating tool with no free-text
	// argument then needs none to carry {{marker}}.
	ByDelta bool
}

func (c *Config) fill() {
	if c.Effect == "" {
		c.Effect = DefaultEffectJSON
	}
	if c.Identity == "" {
		c.Identity = DefaultIdentityJSON
	}
	if c.Status == "" {
		c.Status = DefaultStatusJSON
	}
	if c.Replayed == "" {
		c.Replayed = DefaultReplayedJSON
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
}
