package record

import "time"

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
	// RoleLate: an intent retried with its key after other keys and time
	// went by.
	RoleLate Role = "late"
	// RoleFiller: an intent with a fresh key sent only to come between
	// an intent and its late retry.
	RoleFiller Role = "filler"
	// RoleMalformedKey: sent with a key no target should take (far
	// longer than any key store's limit), to see how it is refused.
	RoleMalformedKey Role = "malformed-key"
	// RoleDistinct: one of several distinct intents (fresh keys and
	// inputs) sent at once.
	RoleDistinct Role = "distinct"
)

// Intent is one logical request and every attempt made at it.
type Intent struct {
	ID        int    `json:"id"`
	Operation string `json:"operation"`
	Mutating  bool   `json:"mutating"`
	Role      Role   `json:"role"`
	Probe     string `json:"probe"`
	// PlannedFor are the checks whose probe made the intent (none for an
	// intent of a generated trial): running those checks alone (--only)
	// makes it again; one whose fault is armed at a later downstream call
	// of its operation needs a clean run of that operation too, which
	// retry.sequential's probes make.
	PlannedFor []string          `json:"planned_for,omitempty"`
	Key        string            `json:"key,omitempty"`
	Marker     string            `json:"marker"`
	Inputs     map[string]string `json:"inputs,omitempty"`
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

// Faulted reports whether any attempt was made under a fault.
func (in *Intent) Faulted() bool {
	for _, a := range in.Attempts {
		if a.Fault != "" {
			return true
		}
	}
	return false
}
