package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// effectField: a caller tells a retry that acted from one that replayed
// by the reply's effect field, or, for an operation that marks its
// replays instead (a replayed header such as Idempotent-Replayed: true,
// a result's "replayed": true), by that mark: present on a replay,
// absent when the call acted.
var effectField = Invariant{
	ID:       CheckEffectField,
	Property: "every reply of a mutating operation carries an effect: created/updated/deleted when it acted, noop when it replayed; a safe operation's reply never says it acted",
	Level:    2,
	Applies:  func(c record.Capabilities) bool { return c.EffectField },
	Probes:   sequentialProbes,
	Eval:     evalEffectField,
}

var actingEffects = map[string]bool{"created": true, "updated": true, "deleted": true}

// expectedEffect says what an ok attempt's effect field should be, judged
// by the ledger: "act" when an effect of the intent was recorded during the
// attempt, "noop" when the intent's effect was recorded before it began,
// "" when it cannot be told.
func expectedEffect(r *record.Record, in *record.Intent, j int) string {
	a := &in.Attempts[j]
	before, during := 0, 0
	kindsBefore := map[effectKind]bool{}
	repeatsKind := false // an effect during the attempt of a kind made before it
	for _, e := range r.EffectsOf(in) {
		switch {
		case e.Seq <= a.LedgerBefore:
			before++
			kindsBefore[effectKind{e.Fake, e.Kind}] = true
		case e.Seq <= a.LedgerAfter:
			during++
			repeatsKind = repeatsKind || kindsBefore[effectKind{e.Fake, e.Kind}]
		}
	}
	switch {
	case during > 0 && before == 0:
		for _, prev := range in.Attempts[:j] {
			if prev.Forwarded {
				// An earlier attempt may still have been running: a replay
				// and an execution are both honest answers.
				return ""
			}
		}
		return "act"
	case during > 0:
		for _, prev := range in.Attempts[:j] {
			if !repeatsKind && mayStillAct(r, prev) {
				// What was recorded during this attempt may be the rest of
				// the earlier one's work (its second call, after a first
				// recorded before): a replay is as honest as an execution.
				return ""
			}
		}
		return "act" // it acted again: honest, and a duplicate reported elsewhere
	case before > 0:
		// A replay is due once the caller has seen the success; before
		// that (a lost reply, a crash) telling it "created" is as honest.
		for _, prev := range in.Attempts[:j] {
			if prev.Outcome != record.OK {
				continue
			}
			if actingEffects[a.Effect] && a.Identity != "" && prev.Identity != "" && a.Identity != prev.Identity {
				// A new result of its own making, which a downstream that
				// de-duplicated by the key kept out of the ledger: it
				// acted, and says so; the key not kept is another
				// check's finding.
				return ""
			}
			return "noop"
		}
	}
	return ""
}

// answeredBefore says whether an attempt of in before attempt j was
// answered with success: attempt j is a retry after a success.
func answeredBefore(in *record.Intent, j int) bool {
	for _, a := range in.Attempts[:j] {
		if a.Outcome == record.OK && !a.DryRun {
			return true
		}
	}
	return false
}

// mayStillAct says whether the target may still have been working on
// attempt a after the caller stopped waiting for it: it reached the
// target and no answer of the target's came back (a timeout, a client
// that left, a reset; not a reply a fault withheld, nor a failure the
// target answered), and its process was not ended with it (a crash; a
// command, whose process is the call).
func mayStillAct(r *record.Record, a record.Attempt) bool {
	return a.Forwarded && a.Outcome != record.OK && !a.Withheld && !a.Crashed && r.Target.Kind != "cli" &&
		failedAnswer(a) == "" && (a.TimedOut || a.Error != "")
}

type effectTally struct {
	op                 string
	ok, missing, wrong int
	// replayUntold counts the replies without an effect field to a retry
	// (after a success, or due to say noop): what shows a caller cannot
	// tell. withField counts the replies with one: beside them, one
	// without is told nothing.
	replayUntold, withField int
	examples                []*record.Intent
	wrongSaid, wrongExp     map[string]int
	// first says what the first wrong reply was, and why another was due.
	first string
}

// wrongEffect says what attempt j of in said (said), and why want was due.
func wrongEffect(in *record.Intent, j int, said, want string) string {
	s := fmt.Sprintf("attempt %d of %d of intent %d said %q", j+1, len(in.Attempts), in.ID, said)
	switch {
	case !in.Mutating:
		return s + ": a safe operation acts on nothing"
	case want == "noop" && in.Role == record.RoleLate && actingEffects[said]:
		// Nothing new was recorded, yet the target says it acted: the
		// downstream may have replayed by the key, hiding a key store
		// that forgot it.
		return s + ": an earlier attempt of the same intent had been answered with success, and its effect was recorded before this one began: a replay of a stored reply says \"noop\"; this was a late retry, after other keys or a delay: a key store that forgot the key acts again and says so, while a downstream given the same key replays its first effect, and nothing new is recorded, as here: see that the key store keeps keys that long (retry.late)"
	case want == "noop":
		return s + ": an earlier attempt of the same intent had been answered with success, and its effect was recorded before this one began: a replay of a stored reply says \"noop\""
	}
	s += ": its own call made the effect, recorded while it ran: it acted, and says so (\"created\", \"updated\" or \"deleted\")"
	if said == "noop" {
		switch in.Attempts[j].Fault {
		case faults.NameDepResetAfterCommit:
			// Its own write, sent again once the connection was reset,
			// found the claim the first one had committed.
			s += "; its database connection was reset after the write had committed, and a write its client sent again (go-redis does, unless MaxRetries is -1) would find the claim the first one made: have the write tell its own claim from another's (a token of the request stored with it), or the client not send it again"
		case faults.NameDownstreamResetAfter:
			s += "; the downstream connection was dropped after the call had acted, and a call its client sent again would find its own first effect: have the target tell its own from another's"
		}
	}
	return s
}

// example keeps up to three distinct intents as evidence.
func (t *effectTally) example(in *record.Intent) {
	for _, x := range t.examples {
		if x.ID == in.ID {
			return
		}
	}
	if len(t.examples) < 3 {
		t.examples = append(t.examples, in)
	}
}

func evalEffectField(r *record.Record) ([]record.Finding, bool) {
	tallies := map[string]*effectTally{}
	get := func(op string) *effectTally {
		t := tallies[op]
		if t == nil {
			t = &effectTally{op: op, wrongSaid: map[string]int{}, wrongExp: map[string]int{}}
			tallies[op] = t
		}
		return t
	}
	readJudged := false
	// replayMarked are the operations some successful reply of which was
	// marked replayed, with no effect field.
	replayMarked := map[string]bool{}
	for i := range r.Intents {
		for _, a := range r.Intents[i].Attempts {
			if a.Outcome == record.OK && a.Replayed && !a.HasEffect && r.Intents[i].Mutating {
				replayMarked[r.Intents[i].Operation] = true
			}
		}
	}
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Role == record.RoleMismatch || in.Role == record.RoleBadSignature || in.Role == record.RoleOtherOperation || in.Role == record.RoleOtherCaller || len(in.Attempts) == 0 {
			continue // whether that should have been accepted is key.mismatch's concern
		}
		for j := range in.Attempts {
			a := &in.Attempts[j]
			if a.Outcome != record.OK {
				continue
			}
			if !in.Mutating {
				// A read needs no effect field: there is nothing to tell
				// apart. One that says it acted misleads, and is judged.
				readJudged = true
				if a.HasEffect && actingEffects[a.Effect] {
					t := get(in.Operation)
					t.ok++
					t.wrong++
					t.wrongSaid[a.Effect]++
					t.wrongExp["noop"]++
					t.example(in)
					if t.first == "" {
						t.first = wrongEffect(in, j, a.Effect, "noop")
					}
				}
				continue
			}
			t := get(in.Operation)
			t.ok++
			effect, said := a.Effect, a.Effect
			if !a.HasEffect && replayMarked[in.Operation] {
				// The operation marks its replays instead (a replayed
				// header, a result's "replayed": true): the mark is the
				// effect, "noop" where it is, an act where it is not.
				effect, said = "created", "no replayed mark"
				if a.Replayed {
					effect, said = "noop", "replayed"
				}
			} else if !a.HasEffect {
				t.missing++
				if !a.DryRun && !a.Burst && (answeredBefore(in, j) || expectedEffect(r, in, j) == "noop") {
					// A retry told as nothing: the caller cannot tell
					// whether it acted or replayed. (A first reply alone
					// shows nothing: the replays may carry a mark.)
					t.replayUntold++
					t.example(in)
				}
				continue
			}
			if a.HasEffect {
				t.withField++
			}
			var want string
			switch {
			case a.DryRun:
				continue // dryrun judges would_* values
			case a.Burst:
				continue // copies run together: which one acted cannot be told
			default:
				want = expectedEffect(r, in, j)
			}
			bad := (want == "noop" && effect != "noop") || (want == "act" && !actingEffects[effect])
			if bad {
				if t.first == "" {
					t.first = wrongEffect(in, j, said, want)
				}
				t.wrong++
				t.wrongSaid[said]++
				t.wrongExp[want]++
				t.example(in)
			}
		}
	}
	var fs []record.Finding
	ops := sortedKeys(tallies)
	applicable := readJudged
	for _, op := range ops {
		t := tallies[op]
		if t.ok > 0 {
			applicable = true
		}
		// An operation that carries no field and showed no retry may
		// yet mark its replays (a header): only a retry told as nothing,
		// or a reply without the field beside others with it, shows that
		// a caller cannot tell.
		if t.replayUntold > 0 || (t.missing > 0 && t.withField > 0) {
			fs = append(fs, record.Finding{
				Check: CheckEffectField, Severity: record.Major, Operation: op,
				Message: fmt.Sprintf("%s: %d of %d successful replies carry no effect field: a caller cannot tell whether a retry acted or replayed (expected e.g. {\"effect\":\"created\"} then {\"effect\":\"noop\"})",
					op, t.missing, t.ok),
				Evidence: evidence(r, t.examples...),
			})
		}
		if t.wrong > 0 {
			fs = append(fs, record.Finding{
				Check: CheckEffectField, Severity: record.Major, Operation: op,
				Message: fmt.Sprintf("%s: %d of %d successful replies state the wrong effect (said %s where %s was due)%s",
					op, t.wrong, t.ok, countList(t.wrongSaid), expList(t.wrongExp), firstOf(t.first)),
				Evidence: evidence(r, t.examples...),
			})
		}
	}
	return fs, applicable
}

// firstOf is the first wrong reply of a tally, as the message's end.
func firstOf(first string) string {
	if first == "" {
		return ""
	}
	return "; the first: " + first
}

func countList(m map[string]int) string {
	keys := sortedKeys(m)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%q×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func expList(m map[string]int) string {
	keys := sortedKeys(m)
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "act" {
			parts = append(parts, "created/updated/deleted")
		} else {
			parts = append(parts, fmt.Sprintf("%q", k))
		}
	}
	return strings.Join(parts, " or ")
}
