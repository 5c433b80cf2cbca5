package harness

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
)

// Outcome is what an attempt's caller can know about it (Jepsen's model).
type Outcome string

// The outcomes of an attempt.
const (
	// OK: the target said it did it.
	OK Outcome = "ok"
	// Fail: it definitely did not happen (refused, rejected, never sent).
	Fail Outcome = "fail"
	// Info: unknown — a timeout, a lost reply, a server error.
	Info Outcome = "info"
)

// Operation is one named thing a target can do.
type Operation struct {
	Name string `json:"name"`
	// Mutating operations have side effects; the others are safe (read-only).
	Mutating bool `json:"mutating"`
	// DryRun is true when the target offers a dry-run mode for it.
	DryRun bool `json:"dry_run,omitempty"`
	// Inputs are the generated values the operation's request uses.
	Inputs map[string]Input `json:"inputs,omitempty"`
	// Annotations are what the operation claims about itself (an MCP
	// tool's annotations); nil when it claims nothing. Mutating is what
	// the harness tests it as: when the configuration overrides the
	// annotations, the two disagree (see Annotations.Disagree).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Deletes is true when the operation removes things (its name says
	// so), for the destructiveHint rule of mcp.annotations.
	Deletes bool `json:"deletes,omitempty"`
}

// Annotations are the behaviour an operation claims, as an MCP tool's
// annotations state it (readOnlyHint, idempotentHint, destructiveHint,
// openWorldHint). They are hints a caller may rely on; the mcp.* checks
// verify them.
type Annotations struct {
	// ReadOnly: calling it changes nothing.
	ReadOnly bool `json:"read_only"`
	// Idempotent: calling it again with the same arguments has no
	// further effect.
	Idempotent bool `json:"idempotent"`
	// Destructive: it may destroy or overwrite things; nil when unsaid
	// (MCP's default is then true).
	Destructive *bool `json:"destructive,omitempty"`
	// OpenWorld: it reaches outside its own domain; nil when unsaid.
	OpenWorld *bool `json:"open_world,omitempty"`
}

// Disagree reports whether op is tested as mutating although its
// annotations say read-only, or the other way round: the configuration
// overrode them.
func (op Operation) Disagree() bool {
	return op.Annotations != nil && op.Mutating == op.Annotations.ReadOnly
}

// Input says how to generate one input value.
type Input struct {
	// Kind is "int", "choice" or "string".
	Kind    string   `json:"kind"`
	Min     int      `json:"min,omitempty"`
	Max     int      `json:"max,omitempty"`
	Choices []string `json:"choices,omitempty"`
	Prefix  string   `json:"prefix,omitempty"`
	Length  int      `json:"length,omitempty"`
}

// TargetInfo describes a target.
type TargetInfo struct {
	Name string `json:"name"`
	// Kind is the adapter: http, cli, mcp, webhook, container.
	Kind       string      `json:"kind"`
	Operations []Operation `json:"operations"`
	// Capabilities says what the target can do; nil means
	// DefaultCapabilities. The checks whose convention the target lacks
	// are reported as not applicable and do not hold the score down.
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// Request names what an operation's request is made of, for messages
	// ("arguments" for a command); empty means "method, path, body".
	Request string `json:"request,omitempty"`
}

// Capabilities says what a target can do. The harness asks it, never the
// target's kind, which checks apply and which probes can be made.
//
// A target declares the conventions it follows (Keys, EffectField,
// DryRun). The abilities that an interface shows (Burst, Restart,
// Signatures, Reorder) are filled in by the harness from the interfaces
// the target implements (Burster, Crasher, Signer, Reorderer), whatever the
// target declares.
type Capabilities struct {
	// Keys: the caller chooses the idempotency key beside the payload (a
	// header, a flag), so it may leave it out or reuse it with another
	// payload (key.required, key.mismatch).
	Keys bool `json:"keys,omitempty"`
	// EffectField: successful replies say what they did (effect.field).
	EffectField bool `json:"effect_field,omitempty"`
	// DryRun: the target's kind has a dry-run convention (dryrun);
	// Operation.DryRun says which operations offer one.
	DryRun bool `json:"dry_run,omitempty"`
	// Burst: copies of one call can be sent at once (Burster).
	Burst bool `json:"burst,omitempty"`
	// Restart: the harness can kill and restart the target (Crasher, and a
	// crash fault it supports).
	Restart bool `json:"restart,omitempty"`
	// Signatures: calls are signed and can be sent forged (Signer).
	Signatures bool `json:"signatures,omitempty"`
	// Reorder: calls can be delivered newest first (Reorderer).
	Reorder bool `json:"reorder,omitempty"`
	// Annotations: operations state how they behave (an MCP server's
	// tool annotations), and the mcp.* checks hold them to it.
	Annotations bool `json:"annotations,omitempty"`
	// Callers: how many callers' credentials the target was given; with
	// two or more, key.scope sends one key from two callers.
	Callers int `json:"callers,omitempty"`
	// Profile names a published convention the target declares it follows
	// and asks to be held to: ProfileIETFDraft, or "" for none.
	Profile string `json:"profile,omitempty"`
}

// DefaultCapabilities are the conventions of an idempotent API that takes
// its key beside the payload: keys, an effect field and dry runs.
func DefaultCapabilities() Capabilities {
	return Capabilities{Keys: true, EffectField: true, DryRun: true}
}

// Caps returns the target's capabilities, DefaultCapabilities when it
// declares none.
func (ti TargetInfo) Caps() Capabilities {
	if ti.Capabilities == nil {
		return DefaultCapabilities()
	}
	return *ti.Capabilities
}

// Operation returns the operation called name.
func (ti TargetInfo) Operation(name string) (Operation, bool) {
	for _, op := range ti.Operations {
		if op.Name == name {
			return op, true
		}
	}
	return Operation{}, false
}

// Call is one attempt as the adapter receives it.
type Call struct {
	// ID identifies the attempt across harness, proxy and fakes.
	ID        string
	Operation string
	// Key is the idempotency key; empty means send none.
	Key    string
	Marker string
	Inputs map[string]string
	DryRun bool
	// Fault is injected into this attempt; nil for none.
	Fault faults.Fault
	// Caller is which of the target's callers sends it (0: the first,
	// or the only one); see Capabilities.Callers.
	Caller int
}

// Vars returns the template variables of the call: key, marker, input.NAME.
func (c Call) Vars() map[string]string {
	v := map[string]string{"key": c.Key, "marker": c.Marker}
	for k, x := range c.Inputs {
		v["input."+k] = x
	}
	return v
}

// Reply is what the adapter saw of an attempt.
type Reply struct {
	Outcome Outcome `json:"outcome"`
	// Status is the HTTP status, or the exit code of a command.
	Status int `json:"status"`
	// Effect is the reply's effect field ("created", "noop", …).
	Effect string `json:"effect,omitempty"`
	// HasEffect is true when the reply carried an effect field at all.
	HasEffect bool `json:"has_effect"`
	// Identity is the result identity (e.g. the created order's id).
	Identity string `json:"identity,omitempty"`
	// Replayed is true when the reply said it was a replay.
	Replayed bool `json:"replayed,omitempty"`
	// Forwarded is false when the request provably never reached the target.
	Forwarded bool `json:"forwarded"`
	// Withheld is true when the target replied but a fault hid the reply.
	Withheld bool `json:"withheld,omitempty"`
	// Body is the start of the reply body (or a command's stdout), for
	// evidence.
	Body string `json:"body,omitempty"`
	// Stderr is the end of a command's standard error, for evidence.
	Stderr string `json:"stderr,omitempty"`
	// ExitSignal names the signal that ended a command, if one did.
	ExitSignal string `json:"exit_signal,omitempty"`
	// Error describes a transport failure, if any.
	Error string `json:"error,omitempty"`
}

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
}

// FakeStarter starts one fake writing to ledger; each fake package
// exports one (payments.Starter, email.Starter, webhooks.Starter).
type FakeStarter = fakes.Starter

// Spec says how to start a target and the fakes it needs.
type Spec struct {
	Name string
	Kind string
	// Fakes are started before the target, one set per target.
	Fakes []FakeStarter
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

// Role says why the harness made an intent, so each check judges the
// intents that concern it.
type Role string

// The roles of intents.
const (
	// RolePlain: a fresh key, perhaps retried under faults.
	RolePlain Role = "plain"
	// RoleNoKey: sent without an idempotency key.
	RoleNoKey Role = "no-key"
	// RoleMismatch: reuses the key of Related with a changed payload.
	RoleMismatch Role = "mismatch"
	// RoleTwin: a distinct key with the same inputs as Related.
	RoleTwin Role = "twin"
	// RoleDryRun: a dry run.
	RoleDryRun Role = "dry-run"
	// RoleAfterDryRun: the real request after the dry run Related, with
	// the same key.
	RoleAfterDryRun Role = "after-dry-run"
	// RoleRead: a call to a safe operation.
	RoleRead Role = "read"
	// RoleBurst: copies released together, then retried until done.
	RoleBurst Role = "burst"
	// RoleBadSignature: a delivery with a wrong signature.
	RoleBadSignature Role = "bad-signature"
	// RoleOtherOperation: the key of Related, an intent of another
	// operation, sent to this one.
	RoleOtherOperation Role = "other-operation"
	// RoleOtherCaller: the key of Related sent to the same operation by
	// another caller (Intent.Caller).
	RoleOtherCaller Role = "other-caller"
	// RoleAfterBadSignature: the genuine delivery of the same event, after
	// the forged one (Related).
	RoleAfterBadSignature Role = "after-bad-signature"
	// RoleOutOfOrder: one of several events delivered newest first.
	RoleOutOfOrder Role = "out-of-order"
	// RoleHinted: a keyless call to an operation annotated read-only that
	// the configuration tests as mutating, made as an agent trusting the
	// hint would.
	RoleHinted Role = "hinted"
)

// Intent is one logical request and every attempt made at it.
type Intent struct {
	ID        int               `json:"id"`
	Operation string            `json:"operation"`
	Mutating  bool              `json:"mutating"`
	Role      Role              `json:"role"`
	Probe     string            `json:"probe"`
	Key       string            `json:"key,omitempty"`
	Marker    string            `json:"marker"`
	Inputs    map[string]string `json:"inputs,omitempty"`
	// Related is the intent this one is defined against (0 for none).
	Related int `json:"related,omitempty"`
	// Caller is which of the target's callers sends the intent (0 for the
	// first or only one).
	Caller int `json:"caller,omitempty"`
	// GaveUp is true when the client chose to stop retrying before the
	// intent succeeded (generated trials do); no check then expects it to
	// complete.
	GaveUp bool `json:"gave_up,omitempty"`
	// Waited is how long at least passed between the intent's success
	// and its late retry, as the run asked (retry.late); 0 when it asked
	// for no wait.
	Waited   time.Duration `json:"waited,omitempty"`
	Attempts []Attempt     `json:"attempts"`
}

// Attempt is one try at an intent.
type Attempt struct {
	N     int    `json:"n"`
	ID    string `json:"id"`
	Fault string `json:"fault,omitempty"`
	// FaultClass is the class of Fault (client, proxy, downstream,
	// downstream-ambiguous, crash).
	FaultClass string `json:"fault_class,omitempty"`
	// Crashed is true when the harness killed the target during the
	// attempt (and restarted it after).
	Crashed bool `json:"crashed,omitempty"`
	// Burst is true for the copies of a burst, sent concurrently.
	Burst  bool `json:"burst,omitempty"`
	DryRun bool `json:"dry_run,omitempty"`
	// Start and End bound the attempt as the client saw it.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// LedgerBefore and LedgerAfter are the ledger's last sequence number
	// when the attempt began and ended.
	LedgerBefore int64 `json:"ledger_before"`
	LedgerAfter  int64 `json:"ledger_after"`
	Reply
}

// Record is the single record of one target's run: what was attempted,
// what the target answered, and what the fakes saw.
type Record struct {
	Target  TargetInfo     `json:"target"`
	Seed    uint64         `json:"seed"`
	Intents []Intent       `json:"intents"`
	Ledger  []fakes.Effect `json:"ledger"`
	// Checks are the ids of the checks that were enabled.
	Checks []string `json:"checks"`
	// Faults are the names of the faults that were tried.
	Faults []string `json:"faults"`
	// Unsupported lists faults the adapter could not inject.
	Unsupported []string `json:"unsupported,omitempty"`
	// UnsupportedWhy says, for each fault of Unsupported, why.
	UnsupportedWhy map[string]string `json:"unsupported_why,omitempty"`
	// Shard is "i/n" when this record is one shard of a run, "" when whole.
	Shard string `json:"shard,omitempty"`
}

// EffectsOf returns the effects attributed to the intent's marker.
func (r *Record) EffectsOf(in *Intent) []fakes.Effect {
	var out []fakes.Effect
	for _, e := range r.Ledger {
		if e.HasMarker(in.Marker) {
			out = append(out, e)
		}
	}
	return out
}

// Intent returns the intent with id.
func (r *Record) Intent(id int) *Intent {
	for i := range r.Intents {
		if r.Intents[i].ID == id {
			return &r.Intents[i]
		}
	}
	return nil
}

// Acknowledged reports whether any attempt of the intent had outcome ok.
func (in *Intent) Acknowledged() bool {
	return in.FirstOK() != nil
}

// FirstOK returns the first attempt with outcome ok, or nil.
func (in *Intent) FirstOK() *Attempt {
	for i := range in.Attempts {
		if in.Attempts[i].Outcome == OK {
			return &in.Attempts[i]
		}
	}
	return nil
}

// FaultClass returns the class of the fault on the first attempt, "" if none.
func (in *Intent) FaultClass() string {
	if len(in.Attempts) == 0 {
		return ""
	}
	return in.Attempts[0].FaultClass
}

// Owner returns the check that judges the intent's retries: the check
// that owns the class of its most disruptive fault (see Invariant.Faults),
// and retry.sequential when no attempt was faulted.
func (in *Intent) Owner() string {
	owner, weight := CheckRetrySequential, 0
	for _, a := range in.Attempts {
		if a.FaultClass == "" {
			continue
		}
		if w := classWeight(faults.Class(a.FaultClass)); w > weight {
			owner, weight = faultOwner(faults.Class(a.FaultClass)), w
		}
	}
	return owner
}

// classWeight orders fault classes by how much they disturb an intent: a
// crash outweighs an ambiguous downstream failure, which outweighs any
// other fault. When an intent met several, the heaviest decides who judges
// it.
func classWeight(c faults.Class) int {
	switch c {
	case faults.ClassCrash:
		return 3
	case faults.ClassDownstreamAmbiguous:
		return 2
	}
	return 1
}

// Faulted reports whether any attempt was made under a fault.
func (in *Intent) Faulted() bool {
	for _, a := range in.Attempts {
		if a.Fault != "" {
			return true
		}
	}
	return false
}
