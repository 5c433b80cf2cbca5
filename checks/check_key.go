package checks

import (
	"fmt"
	"slices"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

var keyMismatch = Invariant{
	ID:       CheckKeyMismatch,
	Property: "the same key with a different payload is rejected and causes no effect",
	Level:    3,
	Applies:  func(c record.Capabilities) bool { return c.Keys },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating || len(pc.Op.Inputs) == 0 {
			return nil
		}
		b := Fresh(record.RoleMismatch, pc.Op.Name)
		b.KeyFrom, b.InputsFrom, b.Change, b.RetryFailures = 0, 0, true, true
		return []Probe{{Name: "key reuse with another payload", Steps: []Step{Fresh(record.RolePlain, pc.Op.Name), b}}}
	},
	Skip: func(r *record.Record) string {
		for _, in := range intentsByRole(r, record.RoleMismatch) {
			if origin := r.Intent(in.Related); origin != nil && !origin.Acknowledged() {
				return "the first request of every reused key failed, so no other payload was ever compared with one the target had accepted"
			}
		}
		return "no mutating operation has inputs to vary"
	},
	Eval: evalKeyMismatch,
}

var keyRequired = Invariant{
	ID:       CheckKeyRequired,
	Property: "a mutating call without a key is refused, or de-duplicated by the framework",
	Level:    3,
	Applies:  func(c record.Capabilities) bool { return c.Keys },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating {
			return nil
		}
		s := Fresh(record.RoleNoKey, pc.Op.Name)
		s.NoKey, s.Repeat = true, 2
		return []Probe{{Name: "no key", Steps: []Step{s}}}
	},
	Eval: evalKeyRequired,
}

var keyDistinct = Invariant{
	ID:       CheckKeyDistinct,
	Property: "two intents with distinct keys and identical inputs cause two effects",
	Level:    1,
	Optional: true,
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating {
			return nil
		}
		b := Fresh(record.RoleTwin, pc.Op.Name)
		b.InputsFrom = 0
		return []Probe{{Name: "distinct keys, same inputs", Steps: []Step{Fresh(record.RolePlain, pc.Op.Name), b}}}
	},
	Eval: evalKeyDistinct,
}

func evalKeyMismatch(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleMismatch)
	examined := false
	for _, in := range ins {
		origin := r.Intent(in.Related)
		if origin == nil || !origin.Acknowledged() {
			// The key's first use never completed (refused, never sent,
			// given up): reusing it is no mismatch the target could know,
			// and nothing was examined.
			continue
		}
		examined = true
		effs := r.EffectsOf(in)
		a := mismatchVerdict(in)
		var msg string
		switch {
		case len(effs) > 0:
			msg = fmt.Sprintf("%s: a reused key with a different payload was executed (%s): expected a rejection (%s)", in.Operation, effectIDs(effs), refusalOf(r, 422)) + unseenKey(r, origin, in)
		case a.Outcome == record.OK && origin != nil && origin.FirstOK() != nil && a.Identity != "" && a.Identity == origin.FirstOK().Identity:
			msg = fmt.Sprintf("%s: a reused key with a different payload silently replayed the first request's result (%s): the caller believes its new request succeeded; expected a rejection (%s)", in.Operation, a.Identity, refusalOf(r, 422))
		case a.Outcome == record.OK:
			msg = fmt.Sprintf("%s: a reused key with a different payload was accepted (%s): expected a rejection (%s)", in.Operation, answerOf(a), refusalOf(r, 422))
		case a.Outcome == record.Info:
			msg = fmt.Sprintf("%s: a reused key with a different payload was answered %s: expected an explicit rejection (%s)", in.Operation, answerOf(a), refusalOf(r, 422))
		default:
			continue
		}
		fs = append(fs, record.Finding{Check: CheckKeyMismatch, Severity: record.Minor, Operation: in.Operation, Message: msg, Evidence: evidence(r, origin, in)})
	}
	return fs, examined
}

// mismatchVerdict returns the attempt that says how the target answered a
// reused key with another payload: an acceptance wherever it came, else a
// definite refusal, else the last attempt. A generated trial may retry the
// request after its refusal, under a fault that loses that reply; the lost
// reply does not undo the refusal.
func mismatchVerdict(in *record.Intent) record.Attempt {
	if a := in.FirstOK(); a != nil {
		return *a
	}
	for _, a := range in.Attempts {
		if a.Outcome == record.Fail {
			return a
		}
	}
	return in.Attempts[len(in.Attempts)-1]
}

func evalKeyRequired(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleNoKey)
	for _, in := range ins {
		effs := r.EffectsOf(in)
		if repeated(effs) <= 1 {
			continue
		}
		fs = append(fs, record.Finding{
			Check: CheckKeyRequired, Severity: record.Minor, Operation: in.Operation,
			Message: fmt.Sprintf("%s: %s without an idempotency key were accepted and caused %s: expected a refusal (%s) or framework de-duplication",
				in.Operation, plural(len(in.Attempts), "call", "calls"), plural(len(effs), "effect", "effects"), refusalOf(r, 400)),
			Evidence: evidence(r, in),
		})
	}
	return fs, len(ins) > 0
}

func evalKeyDistinct(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleTwin)
	for _, in := range ins {
		origin := r.Intent(in.Related)
		if origin == nil || !in.Acknowledged() || !origin.Acknowledged() {
			continue
		}
		if !mergedByPayload(r, origin, in) {
			continue
		}
		msg := fmt.Sprintf("%s: two intents with distinct keys and identical inputs were merged into one effect", in.Operation)
		if x, y := origin.FirstOK().Identity, in.FirstOK().Identity; x != "" && x == y {
			msg += fmt.Sprintf(" (both answered with %s)", x)
		}
		msg += ": the target de-duplicates by payload, not by key, and drops a legitimate request"
		fs = append(fs, record.Finding{Check: CheckKeyDistinct, Severity: record.Critical, Operation: in.Operation, Message: msg, Evidence: evidence(r, origin, in)})
	}
	return fs, len(ins) > 0
}

// mergedByPayload reports whether twin and its origin (distinct keys,
// identical inputs, both acknowledged) show a merge: one of them caused
// effects and the other none, with nothing else to explain the one that
// caused none:
//   - the origin reused an earlier intent's key (a changed payload, a
//     retry), or another payload took its key before it was acknowledged:
//     its key, not its payload, explains it, and the twin's new key
//     rightly acted;
//   - the attempt acknowledged without an effect was itself under a
//     downstream or dependency fault that acted (the downstream call
//     was made, and failed: a payload seen before would have been
//     skipped before it), and it was not answered with the other's
//     result: it was lost to the fault (exactly-once's finding), not
//     merged.
func mergedByPayload(r *record.Record, origin, twin *record.Intent) bool {
	a, b := len(r.EffectsOf(origin)), len(r.EffectsOf(twin))
	if (a == 0) == (b == 0) {
		return false
	}
	none, other := origin, twin
	if b == 0 {
		none, other = twin, origin
	}
	if none == origin && (keyUsedBefore(r, origin) || answeredForAnother(r, origin) || answeredWithAMismatchsResult(r, origin)) {
		return false
	}
	if ackedUnderItsFault(none) {
		x, y := none.FirstOK().Identity, other.FirstOK().Identity
		return x != "" && x == y
	}
	return true
}

// ackedUnderItsFault reports whether in's acknowledged attempt was under
// a downstream or dependency fault that acted: the target acknowledged
// what the failed downstream call had not done; or under a crash, as a
// consumer that acknowledges before its effect is, killed before the
// effect: the event was lost, not merged with another.
func ackedUnderItsFault(in *record.Intent) bool {
	ok := in.FirstOK()
	if ok == nil || ok.Fault == "" || ok.NotFired {
		return false
	}
	switch faults.Class(ok.FaultClass) {
	case faults.ClassDownstream, faults.ClassDownstreamAmbiguous, faults.ClassDependency, faults.ClassCrash:
		return true
	}
	return false
}

// answeredWithAMismatchsResult reports whether in was acknowledged with
// the result of another payload sent with its key (a mismatch of it):
// that payload took the key, whichever was sent first.
func answeredWithAMismatchsResult(r *record.Record, in *record.Intent) bool {
	ok := in.FirstOK()
	if ok == nil || ok.Identity == "" {
		return false
	}
	for i := range r.Intents {
		m := &r.Intents[i]
		if m.Role != record.RoleMismatch || m.Related != in.ID || m.Key != in.Key {
			continue
		}
		if mok := m.FirstOK(); mok != nil && mok.Identity == ok.Identity {
			return true
		}
	}
	return false
}

// keyUsedBefore reports whether an intent made before in sent in's key:
// in then reused a key, and a target that honours keys answers it from
// that key's first use.
func keyUsedBefore(r *record.Record, in *record.Intent) bool {
	if in.Key == "" {
		return false
	}
	for i := range r.Intents {
		o := &r.Intents[i]
		if o.ID < in.ID && o.Key == in.Key {
			return true
		}
	}
	return false
}

// unseenKey says why a reused key with another payload was executed when
// the instance or session that executed it was not the one that answered
// the key first, and the op's retries show that they keep keys apart: it
// never saw the key. Whether one that holds the key rejects another
// payload under it is then not shown. "" otherwise.
func unseenKey(r *record.Record, origin, in *record.Intent) string {
	first := origin.FirstOK()
	causers := effectAttempts(r, in)
	if first == nil || len(causers) == 0 || ignoredAlone(r, in.Operation) ||
		slices.ContainsFunc(causers, func(a *record.Attempt) bool { return a.Burst }) {
		return ""
	}
	for _, n := range []struct {
		what string
		name func(*record.Attempt) string
	}{{"instance", instanceOf}, {"session", sessionOf}} {
		a, b := n.name(first), n.name(causers[0])
		elsewhere := func(c *record.Attempt) bool { return n.name(c) != "" && n.name(c) != a }
		if a == "" || !slices.ContainsFunc(causers, elsewhere) || slices.ContainsFunc(causers, func(c *record.Attempt) bool { return !elsewhere(c) }) ||
			!keptApart(r, in.Operation, n.name) {
			continue
		}
		return fmt.Sprintf("; the key was first answered by %s and the other payload executed by %s, which never saw the key: each %s keeps keys of its own; keep them where every %s reads them (whether one that holds the key rejects another payload under it was not shown)",
			a, b, n.what, n.what)
	}
	return ""
}
