package checks

import (
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// The stable ids of the checks.
const (
	CheckRetrySequential      = "retry.sequential"
	CheckRetryAfterFault      = "retry.after-fault"
	CheckRetryLate            = "retry.late"
	CheckConcurrentDuplicates = "concurrent.duplicates"
	CheckConcurrentDistinct   = "concurrent.distinct"
	CheckCrashRecovery        = "crash.recovery"
	CheckDownstream           = "downstream.propagation"
	CheckDependencyRecovery   = "dependency.recovery"
	CheckKeyMismatch          = "key.mismatch"
	CheckKeyRequired          = "key.required"
	CheckKeyDistinct          = "key.distinct"
	CheckKeyScope             = "key.scope"
	CheckReplayConsistent     = "replay.consistent"
	CheckEffectField          = "effect.field"
	CheckDryRun               = "dryrun"
	CheckSafeReadOnly         = "safe.readonly"
	CheckExactlyOnce          = "exactly-once"
	CheckWebhookSignature     = "webhook.signature"
	CheckWebhookOrder         = "webhook.out-of-order"
	CheckMCPReadOnlyHint      = "mcp.readonly-hint"
	CheckMCPIdempotentHint    = "mcp.idempotent-hint"
	CheckMCPAnnotations       = "mcp.annotations"
	CheckIETFDraft            = "ietf.draft"
	CheckConsumerRedelivery   = "consumer.redelivery"
	CheckReplyHonest          = "reply.honest"
	CheckKeyMalformed         = "key.malformed"
)

// Invariant is one check, declared whole in its own check_*.go file: its
// stable id, the property it verifies, the rubric level it belongs to, the
// probes it needs, when it applies, why it may have nothing to judge, and
// how it judges a Record. Everything else (the probe plan, the rubric's
// needs, the fault-class table, skip notes) is derived from the registered
// checks; see CREATING_CHECKS.md.
type Invariant struct {
	// ID is stable across versions; reports and configuration use it.
	ID string
	// Property says in one sentence what must hold.
	Property string
	// Level is the rubric level (1–3) whose condition the check is part of.
	Level int
	// Optional checks may be skipped (the target cannot take the faults
	// they need, has no such operation) without holding the score below
	// Level; their findings still count.
	Optional bool
	// Probes returns the probes the check needs against one operation
	// (called for every operation; it returns none for an operation it has
	// nothing to ask of). Probes that several checks declare alike (same
	// name, same operation) run once.
	Probes func(ProbeContext) []Probe
	// Faults are the fault classes whose intents the check judges: it owns
	// the retries of an intent whose fault has one of these classes, and
	// ProbeContext.Faults gives it the faults of these classes to try.
	Faults []faults.Class
	// Applies is the not-applicable rule: false when the target lacks the
	// convention the check verifies. Nil means it always applies.
	Applies func(record.Capabilities) bool
	// Unapplied says why the check does not apply when that is not the
	// target's kind (a profile it did not opt into, a caller that reads
	// no reply); "" means NotApplicableNote.
	Unapplied string
	// Skip says why the check had nothing to judge in rec; nil means a
	// generic note.
	Skip func(rec *record.Record) string
	// Eval judges the record. It returns every violation it sees, not only
	// the first, and applicable=false when nothing in the record concerns it.
	Eval func(r *record.Record) (findings []record.Finding, applicable bool)
}

// ProbeContext is what a check is told when it plans its probes against one
// operation of a target.
type ProbeContext struct {
	// Op is the operation.
	Op record.Operation
	// Caps is what the target can do.
	Caps record.Capabilities
	// Faults are the enabled faults of the check's classes (Invariant.Faults)
	// that the target can take.
	Faults []faults.Fault
	// Burst is how many copies a burst sends; 0 when the target cannot
	// send bursts.
	Burst int
	// Bursts is how many bursts a check that sends them sends per
	// operation, each with a fresh key (at least 1).
	Bursts int
	// Ops are all the target's operations, for a probe that goes from
	// one to another.
	Ops []record.Operation
	// Late is how many other keys and how long retry.late puts between
	// an intent and its late retry.
	Late LateOptions
}

// applies reports whether the check applies to a target with caps.
func (c Invariant) applies(caps record.Capabilities) bool {
	return c.Applies == nil || c.Applies(caps)
}

// registry is every check of this version, in report order. A new check
// is declared in its own file and listed here.
var registry []Invariant

func init() {
	registry = []Invariant{
		retrySequential,
		retryAfterFault,
		retryLate,
		concurrentDuplicates,
		concurrentDistinct,
		crashRecovery,
		downstreamPropagation,
		consumerRedelivery,
		dependencyRecovery,
		keyMismatch,
		keyRequired,
		keyDistinct,
		keyScope,
		keyMalformed,
		replayConsistent,
		replyHonest,
		effectField,
		dryRun,
		safeReadOnly,
		exactlyOnce,
		webhookSignature,
		webhookOrder,
		mcpReadOnlyHint,
		mcpIdempotentHint,
		mcpAnnotations,
		ietfDraft,
	}
}

// Checks returns the checks this version implements, in report order.
func Checks() []Invariant {
	return append([]Invariant(nil), registry...)
}

// KnownCheck reports whether id names a check of this version.
func KnownCheck(id string) bool {
	for _, c := range registry {
		if c.ID == id {
			return true
		}
	}
	return false
}

// faultOwner returns the check that owns intents retried after a fault of
// class c: the registered check that lists c in its Faults, or
// retry.after-fault for a class no check lists.
func faultOwner(c faults.Class) string {
	for _, chk := range registry {
		for _, fc := range chk.Faults {
			if fc == c {
				return chk.ID
			}
		}
	}
	return CheckRetryAfterFault
}

// NotApplicable lists the ids of the registered checks that do not apply
// to a target with caps: those the score does not hold against it.
func NotApplicable(caps record.Capabilities) []string {
	var ids []string
	for _, c := range registry {
		if !c.applies(caps) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// NotApplicableNote is the note of a check that does not apply to a kind.
func NotApplicableNote(kind string) string {
	return "not applicable to " + kind + " targets"
}
