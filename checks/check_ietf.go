package checks

import (
	"fmt"
	"net/http"
	"sort"

	"github.com/idemcheck/idemcheck/record"
)

// ProfileIETFDraft is the Capabilities.Profile of a target that declares it
// follows the IETF httpapi working group's draft "The Idempotency-Key HTTP
// Header Field", and asks ietf.draft to hold it to the draft's status codes.
const ProfileIETFDraft = "ietf-draft"

// Profiles are the values Capabilities.Profile may take besides "".
var Profiles = []string{ProfileIETFDraft}

// ietfDraft holds a target that opted into the ietf-draft profile to the
// status codes the Idempotency-Key draft names. It sends no probe of its
// own: it declares the probes of key.required (a keyless request),
// key.mismatch (a key reused with another payload), concurrent.duplicates
// (bursts of same-key copies) and retry.sequential (a retry after
// success), which the planner runs once for all of them (and only for a
// target on the profile), and judges only
// the status codes (and, for a replay, the result) of their replies. The
// effects those checks count are theirs to judge.
var ietfDraft = Invariant{
	ID:        CheckIETFDraft,
	Property:  "a target on the ietf-draft profile answers as the Idempotency-Key draft says: 400 without a key, 409 for a concurrent copy, 422 for a reused key with another payload, and the first reply on a retry",
	Level:     3,
	Optional:  true,
	Applies:   func(c record.Capabilities) bool { return c.Profile == ProfileIETFDraft },
	Unapplied: "not applicable: only a target on the ietf-draft profile (profile: ietf-draft) is judged by it",
	Probes: func(pc ProbeContext) []Probe {
		if pc.Caps.Profile != ProfileIETFDraft {
			return nil
		}
		var ps []Probe
		ps = append(ps, keyRequired.Probes(pc)...)
		ps = append(ps, keyMismatch.Probes(pc)...)
		ps = append(ps, burstProbes(pc)...)
		ps = append(ps, sequentialProbes(pc)...)
		return ps
	},
	Skip: func(*record.Record) string {
		return "no mutating operation was probed (only targets declaring profile: ietf-draft are held to the draft)"
	},
	Eval: evalIETFDraft,
}

// The draft's sections, as findings name them.
const (
	ietfErrors = "Idempotency-Key draft, section 2.7 (Error Scenarios)"
	ietfReplay = "Idempotency-Key draft, section 2.6 (Idempotency Enforcement)"
)

// answered reports whether a carries a status the target chose: it reached
// the target, was not hidden by a fault, and was not a transport failure.
func answered(a record.Attempt) bool {
	return a.Status > 0 && a.Error == "" && !a.Withheld && a.FaultClass == ""
}

// ietfTally gathers one operation's deviations of one kind, so that each
// kind is one finding per operation however many intents showed it.
type ietfTally struct {
	op, kind string
	n, of    int
	example  string
	ins      []*record.Intent
}

func evalIETFDraft(r *record.Record) ([]record.Finding, bool) {
	if r.Target.Caps().Profile != ProfileIETFDraft {
		return nil, false
	}
	tallies := map[[2]string]*ietfTally{}
	applicable := false
	note := func(op, kind string, in *record.Intent, bad bool, example string) {
		applicable = true
		k := [2]string{op, kind}
		t := tallies[k]
		if t == nil {
			t = &ietfTally{op: op, kind: kind}
			tallies[k] = t
		}
		t.of++
		if !bad {
			return
		}
		t.n++
		if t.example == "" {
			t.example = example
		}
		if len(t.ins) < 3 {
			t.ins = append(t.ins, in)
		}
	}

	// (a) A keyless request to an operation that requires the key: 400.
	for _, in := range intentsByRole(r, record.RoleNoKey) {
		for _, a := range in.Attempts {
			if !answered(a) {
				continue
			}
			note(in.Operation, "nokey", in, a.Status != http.StatusBadRequest, fmt.Sprintf("%d (%s)", a.Status, short(a.Body, 60)))
		}
	}
	// (b) The same key with another payload: 422.
	for _, in := range intentsByRole(r, record.RoleMismatch) {
		origin := r.Intent(in.Related)
		if origin == nil || !origin.Acknowledged() || len(in.Attempts) == 0 {
			continue
		}
		a := mismatchVerdict(in)
		if !answered(a) {
			continue
		}
		note(in.Operation, "mismatch", in, a.Status != http.StatusUnprocessableEntity, fmt.Sprintf("%d (%s)", a.Status, short(a.Body, 60)))
	}
	// (c) A copy sent while another with the same key is in flight: 409,
	// or the first reply replayed. Which copy wins a race varies between
	// runs; a conforming target gives one of the two either way, so only
	// a third answer is a deviation.
	for _, in := range intentsByRole(r, record.RoleBurst) {
		first := in.FirstOK()
		for _, a := range in.Attempts {
			if !a.Burst || !answered(a) {
				continue
			}
			bad, ex := false, ""
			switch {
			case a.Status == http.StatusConflict:
			case a.Outcome == record.OK:
				if first != nil && first.Identity != "" && a.Identity != "" && a.Identity != first.Identity {
					bad, ex = true, fmt.Sprintf("%d naming another result (%s, not %s)", a.Status, a.Identity, first.Identity)
				}
			default:
				bad, ex = true, fmt.Sprintf("%d (%s)", a.Status, short(a.Body, 60))
			}
			note(in.Operation, "concurrent", in, bad, ex)
		}
	}
	// (d) A retry with the same key and payload after a success: the first
	// reply again, its status and its result.
	for _, in := range intentsByRole(r, record.RolePlain) {
		if owner(r, in) != CheckRetrySequential || len(in.Attempts) < 2 || !in.Mutating {
			continue
		}
		a0 := in.Attempts[0]
		if a0.Outcome != record.OK || !answered(a0) {
			continue
		}
		for _, a := range in.Attempts[1:] {
			if !answered(a) {
				continue
			}
			bad, ex := false, ""
			switch {
			case a.Status != a0.Status:
				bad, ex = true, fmt.Sprintf("%d after %d (%s)", a.Status, a0.Status, short(a.Body, 60))
			case a0.Identity != "" && a.Identity != a0.Identity:
				bad, ex = true, fmt.Sprintf("%q after %q", a.Identity, a0.Identity)
			}
			note(in.Operation, "replay", in, bad, ex)
		}
	}

	var keys [][2]string
	for k, t := range tallies {
		if t.n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return ietfOrder[keys[i][1]] < ietfOrder[keys[j][1]]
	})
	var fs []record.Finding
	for _, k := range keys {
		t := tallies[k]
		fs = append(fs, record.Finding{
			Check: CheckIETFDraft, Severity: record.Minor, Operation: t.op,
			Message:  ietfMessage(t),
			Evidence: evidence(r, t.ins...),
		})
	}
	return fs, applicable
}

// ietfOrder is the order of a finding's kinds within one operation.
var ietfOrder = map[string]int{"nokey": 0, "mismatch": 1, "concurrent": 2, "replay": 3}

func ietfMessage(t *ietfTally) string {
	of := fmt.Sprintf("%d of %d", t.n, t.of)
	switch t.kind {
	case "nokey":
		return fmt.Sprintf("%s: %s: a request without the Idempotency-Key header should be refused with 400 Bad Request; %s keyless requests were answered %s",
			t.op, ietfErrors, of, t.example)
	case "mismatch":
		return fmt.Sprintf("%s: %s: a key reused with a different payload should be refused with 422 Unprocessable Content; %s such requests were answered %s",
			t.op, ietfErrors, of, t.example)
	case "concurrent":
		return fmt.Sprintf("%s: %s: a request whose key is still being processed should get 409 Conflict (or, once done, the first reply); %s concurrent copies were answered %s",
			t.op, ietfErrors, of, t.example)
	default:
		return fmt.Sprintf("%s: %s: a retry with the same key and payload after a success should get the first reply again; %s retries were answered %s",
			t.op, ietfReplay, of, t.example)
	}
}
