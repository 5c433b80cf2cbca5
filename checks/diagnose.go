package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// The causes a duplicate is explained by, each chosen from who served the
// attempts that caused its effects (record.Reply.Instance, Session,
// record.Attempt.Incarnation) and when.
const (
	causeAtomic = "the key is checked and claimed in two steps; claim it atomically"
)

// duplicateCause explains why the attempts at in, which share its key,
// caused more than one effect, from the evidence of who served them:
// attempts on different instances whose store is not shown shared → one
// store per instance; in different sessions → keys kept per session; a
// restart between them → the store did not survive it; the same instance
// and session, at once → the claim is not atomic. "" when the evidence
// says none of these.
func duplicateCause(r *record.Record, in *record.Intent) string {
	causers := effectAttempts(r, in)
	if len(causers) < 2 {
		return ""
	}
	concurrent := overlapping(causers)
	if names := distinct(causers, func(a *record.Attempt) string { return a.Instance }); len(names) > 1 {
		if concurrent && sharedAcross(r, in.Operation, func(a *record.Attempt) string { return a.Instance }) {
			return causeAtomic + " (the instances share one store, and one burst spread over " + strings.Join(names, ", ") + " went through twice)"
		}
		return fmt.Sprintf("the attempts were served by different instances (%s), and each keeps its own keys: one store per instance; keep the keys in a store every instance shares", strings.Join(names, ", "))
	}
	if names := distinct(causers, func(a *record.Attempt) string { return a.Session }); len(names) > 1 {
		if concurrent && sharedAcross(r, in.Operation, func(a *record.Attempt) string { return a.Session }) {
			return causeAtomic
		}
		return fmt.Sprintf("the attempts came in different sessions (%s), and the keys are kept per session; keep them for the whole server, whatever the session", strings.Join(names, ", "))
	}
	if gens := distinct(causers, func(a *record.Attempt) string {
		if a.Incarnation == 0 {
			return ""
		}
		return fmt.Sprint(a.Incarnation)
	}); len(gens) > 1 && !concurrent {
		return fmt.Sprintf("the target restarted between the attempts (incarnations %s), and the key store did not survive the restart; keep keys in durable storage", strings.Join(gens, " and "))
	}
	if concurrent {
		return causeAtomic
	}
	return ""
}

// effectAttempts are the attempts at in during which one of its effects
// was recorded (by the ledger's sequence numbers); all of a burst's copies
// when the effect came during the burst.
func effectAttempts(r *record.Record, in *record.Intent) []*record.Attempt {
	var out []*record.Attempt
	effs := r.EffectsOf(in)
	for i := range in.Attempts {
		a := &in.Attempts[i]
		if a.DryRun {
			continue
		}
		for _, e := range effs {
			if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// distinct lists the non-empty values of name over as, sorted.
func distinct(as []*record.Attempt, name func(*record.Attempt) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range as {
		if n := name(a); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// overlapping reports whether any two of as ran at once.
func overlapping(as []*record.Attempt) bool {
	for i := range as {
		for j := i + 1; j < len(as); j++ {
			if as[i].Start.Before(as[j].End) && as[j].Start.Before(as[i].End) {
				return true
			}
		}
	}
	return false
}

// sharedAcross reports whether the record shows op's key store shared
// across what name tells apart (instances, sessions): a retry after a
// success, alone, served by another than the success, replayed without a
// new effect, and none caused one.
func sharedAcross(r *record.Record, op string, name func(*record.Attempt) string) bool {
	shared := false
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Operation != op || in.Key == "" {
			continue
		}
		var first *record.Attempt
		for j := range in.Attempts {
			a := &in.Attempts[j]
			if a.Burst || a.DryRun || a.Fault != "" {
				continue
			}
			if first == nil {
				if a.Outcome == record.OK {
					first = a
				}
				continue
			}
			if name(a) == "" || name(a) == name(first) {
				continue
			}
			if causedEffect(r, in, a) {
				return false // another served it, and charged again
			}
			if a.Outcome == record.OK {
				shared = true
			}
		}
	}
	return shared
}

// causedEffect reports whether one of in's effects was recorded during a.
func causedEffect(r *record.Record, in *record.Intent, a *record.Attempt) bool {
	for _, e := range r.EffectsOf(in) {
		if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
			return true
		}
	}
	return false
}

// DuplicateCause explains, from the evidence of who served them, why the
// attempts at in (one key) caused more than one effect; "" when the
// evidence does not say. The checks put it in their findings' messages.
func DuplicateCause(r *record.Record, in *record.Intent) string { return duplicateCause(r, in) }

// causeSuffix is "; " and why in's attempts duplicated, when the evidence
// says; "" otherwise.
func causeSuffix(r *record.Record, in *record.Intent) string {
	if c := duplicateCause(r, in); c != "" {
		return "; " + c
	}
	return ""
}

// withCause puts cause where msg says guess.
func withCause(msg, guess, cause string) string {
	return strings.Replace(msg, guess, ": "+cause, 1)
}
