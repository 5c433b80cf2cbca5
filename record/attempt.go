package record

import (
	"time"

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

// ReplyCut begins the Error of an attempt whose reply body was longer
// than idemcheck keeps: what follows says how much arrived where that was
// counted (the fault proxy counts, a burst's copy stops reading), but the
// attempt failed the same way either way.
const ReplyCut = "the reply's body was cut"

// ReplyUnfinished begins the Error of an attempt whose reply's status
// and header arrived but whose body did not arrive whole (the timeout
// passed while it was read, or the connection failed). A body that never
// ends is cut on one machine and unfinished on a slower one, so the two
// count as one way of failing (see ReplyCut).
const ReplyUnfinished = "the reply's body did not arrive whole"

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
	// Acted, when set, says whether Fault has acted yet: a fake failed
	// the downstream call or the target was killed at the fault's point.
	// It is nil when there is no fault, when the harness cannot tell, or
	// when a wait for it could only run out (the fault acts at an effect
	// an observer reads once the attempt is over, or no fake has been
	// seen take a call of the operation with an intent's marker).
	// A target whose answer can come before the effects it answers for
	// (a consumer that acknowledges an event, then acts on it) does not
	// call the attempt over while it is false, up to its deadline:
	// otherwise the fault, disarmed when the attempt ends, would miss the
	// effect it was armed for.
	Acted func() bool
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
	// Broker is what a queue consumer's broker saw of the event while
	// the attempt lasted: each publish, delivery (with its delivery
	// count), ack, lost or late ack and rebalance, in order.
	Broker string `json:"broker,omitempty"`
	// TimedOut is true when the attempt ended because its timeout passed
	// with no reply (the client gave up, or the harness killed a command
	// that had not ended): silence, whatever the target printed or how
	// it was killed; or with a reply whose status came but whose body had
	// not ended (Error begins with ReplyUnfinished), which is an answer,
	// not silence.
	TimedOut bool `json:"timed_out,omitempty"`
	// Instance names the instance (replica) that served the call, where
	// the target has several ("" with one).
	Instance string `json:"instance,omitempty"`
	// Session names the protocol session that carried the call (an MCP
	// session), where the kind has sessions.
	Session string `json:"session,omitempty"`
	// Connection names the connection that carried the call, where the
	// adapter knows it.
	Connection string `json:"connection,omitempty"`
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
	// NotFired is true when Fault was armed for the attempt and never
	// acted while it ran (see CauseUnfired): the attempt was made as if
	// unfaulted, and shows nothing of that fault.
	NotFired bool `json:"not_fired,omitempty"`
	// Point is the downstream call of the intent the fault was armed at,
	// when the operation's clean run made more than one (see
	// Record.EffectPoints); nil when it made one, or its calls were not
	// known yet: the fault then acts on the first call, whichever it is.
	Point *EffectPoint `json:"point,omitempty"`
	// Incarnation counts the target's process generations the harness
	// started: 1 until its first restart, 2 after it, and so on; 0 when
	// the harness did not count (a record from an earlier version).
	Incarnation int `json:"incarnation,omitempty"`
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

// Retryable says whether a client that follows the usual conventions
// would retry after rep with the same key: an unknown outcome, a call
// that never reached the target, a timeout, "in progress" (409, 425,
// 429) or a server's failure (500, 502, 503, 504). Any other answer is
// final: a success, or a refusal such as a 4xx, a tool's isError that
// says no status, or a command's failure.
func (rep Reply) Retryable() bool {
	if rep.Outcome == Info || !rep.Forwarded {
		return true
	}
	switch rep.Status {
	case 408, 409, 425, 429, 500, 502, 503, 504:
		return true
	}
	return false
}
