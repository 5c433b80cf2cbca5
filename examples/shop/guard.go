package shop

import (
	"context"
	"errors"
)

// A guard is an idempotency strategy: for each mutating request it decides
// whether the shop executes it (and causes a charge) or answers from memory.
// Every profile's guard lives in its own guard_*.go file; the handlers only
// speak this protocol:
//
//	claim, replay, err := g.begin(c)
//	err != nil     → refuse the request (400, 409, 422; see statusOf)
//	replay != nil  → send the stored reply, marked as a replay
//	otherwise      → claim.prepare(planned); charge; claim.complete(final)
//	                 or, if the charge failed retryably, claim.release()
type guard interface {
	begin(c call) (claim, *reply, error)
}

// A claim is the right to execute one call. The handler calls prepare once,
// just before the side effect, then exactly one of complete or release.
type claim interface {
	// downstreamKey is the idempotency key to pass on to payments, or ""
	// when the strategy does not propagate one.
	downstreamKey() string
	// prepare is told the reply the shop means to send, before the side
	// effect happens. A correct guard ignores it: nothing has happened yet.
	prepare(planned reply)
	// complete records the final reply for replays. A 5xx reply is never
	// stored: complete treats it as release.
	complete(final reply)
	// release gives up the claim, so that a retry with the same key
	// executes; a correct guard keeps the key bound to its payload.
	release()
}

// call is what a guard sees of one mutating request.
type call struct {
	op operation
	// key is the client's Idempotency-Key, "" when absent.
	key string
	// fingerprint identifies what was asked: method, path and the canonical
	// JSON of the whole body. The same key with another fingerprint is a
	// client bug (422).
	fingerprint string
	// semantic is what the request means without its free text: operation,
	// customer, and amount or plan; the memo is left out. Only a guard that
	// derives keys from the payload uses it.
	semantic string
	// ctx is the request's context; only a guard whose bookkeeping is
	// bound to it uses it.
	ctx context.Context
}

// maxKeyLen bounds the Idempotency-Key, as Stripe does.
const maxKeyLen = 255

// The refusals a guard can answer with; the texts are what clients see.
var (
	errKeyRequired = errors.New("Idempotency-Key header is required")
	errKeyInvalid  = errors.New("Idempotency-Key must be at most 255 characters")
	errKeyNotUUID  = errors.New("Idempotency-Key must be a UUID (8-4-4-4-12 hex digits)")
	errInFlight    = errors.New("request with this key is in flight")
	errKeyReused   = errors.New("idempotency key reused with a different payload")
	// errStore wraps a failure of the durable key store: the shop cannot
	// promise to remember the key, so it does not execute.
	errStore = errors.New("idempotency key store unavailable")
)

// statusOf maps a guard's refusal to its HTTP status, following
// draft-ietf-httpapi-idempotency-key-header.
func statusOf(err error) int {
	switch {
	case errors.Is(err, errKeyRequired), errors.Is(err, errKeyInvalid), errors.Is(err, errKeyNotUUID):
		return 400
	case errors.Is(err, errInFlight):
		return 409
	case errors.Is(err, errKeyReused):
		return 422
	case errors.Is(err, errStore):
		return 503
	default:
		return 500
	}
}

// unguarded is the claim of a call that no guard remembers: it executes,
// and every retry executes again.
type unguarded struct{}

func (unguarded) downstreamKey() string { return "" }
func (unguarded) prepare(reply)         {}
func (unguarded) complete(reply)        {}
func (unguarded) release()              {}
