package ordertool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// A store is an idempotency strategy: for each mutating call it decides
// whether the tool acts, replays a stored reply, or refuses. Each store
// lives in its own store_*.go file; commands only speak this protocol:
//
//	claim, replay, err := s.begin(req)
//	err != nil     → refuse (the error says how; see refusal)
//	replay != nil  → print the stored reply with effect "noop"
//	otherwise      → act with claim.downstreamKey(); then claim.complete(reply)
//	                 or, if acting failed, claim.fail(err)
type store interface {
	begin(req request) (claim, *envelope, error)
	// dryRun says whether the store offers --dry-run.
	dryRun() bool
	close() error
}

// A claim is the right to act on one call.
type claim interface {
	// downstreamKey is the Idempotency-Key to pass on downstream, "" when
	// the store keeps its key to itself.
	downstreamKey() string
	// complete records the reply of a call that acted.
	complete(reply envelope) error
	// fail records that acting failed (err says how).
	fail(err error)
}

// request is what a store sees of one mutating call.
type request struct {
	op string
	// key is the caller's --idempotency-key, "" when absent.
	key string
	// inputs are the call's flags, by name.
	inputs map[string]any
}

// fingerprint identifies what was asked: the operation and every input.
// The same key with another fingerprint is a caller's mistake.
func (r request) fingerprint() string {
	b, _ := json.Marshal(map[string]any{"op": r.op, "inputs": r.inputs}) // map keys are sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// derivedKey is the key derived from the operation and its inputs: the
// same operation and inputs give the same key.
func (r request) derivedKey() string {
	return "idem_" + r.fingerprint()[:24]
}

// refusal is a store's reason not to act, with its exit code.
type refusal struct {
	exit int
	code string
	msg  string
}

func (e *refusal) Error() string { return e.msg }

func refuse(exit int, code, format string, args ...any) error {
	return &refusal{exit: exit, code: code, msg: fmt.Sprintf(format, args...)}
}

// storeError turns a failure of the store itself into a refusal: the
// tool cannot promise to remember the key, so it does not act.
func storeError(what string, err error) error {
	return refuse(ExitTempFail, codeStore, "idempotency store: %s: %v", what, err)
}

func asRefusal(err error) response {
	var r *refusal
	if errors.As(err, &r) {
		return failure(r.exit, r.code, "%s", r.msg)
	}
	return failure(ExitTempFail, codeStore, "%v", err)
}

// openStore opens the store named by g.store in g.stateDir.
func openStore(g globals) (store, error) {
	if err := os.MkdirAll(g.stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %v", err)
	}
	switch g.store {
	case "none":
		return noneStore{}, nil
	case "jsonl":
		return openJSONL(g.stateDir)
	case "sqlite":
		return openSQLite(g.stateDir, g.ttl)
	case "correct":
		return openCorrect(g.stateDir, g.wait)
	}
	return nil, fmt.Errorf("unknown store %q", g.store)
}

// noneStore is no idempotency at all: every call acts (the rubric's 0).
type noneStore struct{}

func (noneStore) begin(request) (claim, *envelope, error) { return unguarded{}, nil, nil }
func (noneStore) dryRun() bool                            { return false }
func (noneStore) close() error                            { return nil }

// unguarded is the claim of a call no store remembers.
type unguarded struct{}

func (unguarded) downstreamKey() string   { return "" }
func (unguarded) complete(envelope) error { return nil }
func (unguarded) fail(error)              {}
