package harness

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
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
	// NotApplicable lists the checks whose convention this kind of target
	// does not have (a webhook handler has no effect field or dry run).
	// They are reported as skipped and do not hold the score down.
	NotApplicable []string `json:"not_applicable,omitempty"`
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

// FakeStarter starts one fake writing to ledger.
type FakeStarter func(ctx context.Context, ledger *fakes.Ledger) (fakes.Fake, error)

// Spec says how to start a target and the fakes it needs.
type Spec struct {
	Name string
	Kind string
	// Fakes are started before the target, one set per target.
	Fakes []FakeStarter
	// Start starts the target once the fakes run.
	Start func(ctx context.Context, env *Env) (Target, error)
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
	// RoleAfterBadSignature: the genuine delivery of the same event, after
	// the forged one (Related).
	RoleAfterBadSignature Role = "after-bad-signature"
	// RoleOutOfOrder: one of several events delivered newest first.
	RoleOutOfOrder Role = "out-of-order"
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
	// GaveUp is true when the client chose to stop retrying before the
	// intent succeeded (generated trials do); no check then expects it to
	// complete.
	GaveUp   bool      `json:"gave_up,omitempty"`
	Attempts []Attempt `json:"attempts"`
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
	// Shard is "i/n" when this record is one shard of a run, "" when whole.
	Shard string `json:"shard,omitempty"`
	// CanCrash and CanBurst say whether the target could be killed and
	// restarted, and sent bursts.
	CanCrash bool `json:"can_crash,omitempty"`
	CanBurst bool `json:"can_burst,omitempty"`
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

// Owner returns the check that judges the intent's retries: crash.recovery
// if any attempt crashed the target, downstream.propagation if any met an
// ambiguous downstream fault, retry.after-fault for any other fault, and
// retry.sequential when none was faulted.
func (in *Intent) Owner() string {
	owner := CheckRetrySequential
	for _, a := range in.Attempts {
		switch a.FaultClass {
		case "crash":
			return CheckCrashRecovery
		case "downstream-ambiguous":
			owner = CheckDownstream
		case "":
		default:
			if owner == CheckRetrySequential {
				owner = CheckRetryAfterFault
			}
		}
	}
	return owner
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
