package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

var exactlyOnce = Invariant{
	ID:       CheckExactlyOnce,
	Property: "no acknowledged intent is without its effect, and no single call causes two",
	Level:    1,
	Probes:   sequentialProbes,
	Eval:     evalExactlyOnce,
}

// evalExactlyOnce finds lost effects (an acknowledged intent with none) and
// single calls that acted twice. Duplicates caused by retries belong to the
// retry checks, merges of distinct keys to key.distinct, a dry run that
// consumed the key to dryrun.
func evalExactlyOnce(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, record.RolePlain, record.RoleTwin, record.RoleNoKey, record.RoleBurst, record.RoleAfterDryRun) {
		if !in.Mutating {
			continue
		}
		applicable = true
		effs := r.EffectsOf(in)
		if n, a := actedTwice(in, effs); n > 1 {
			fs = append(fs, record.Finding{
				Check: CheckExactlyOnce, Severity: record.Critical, Operation: in.Operation,
				Message:  fmt.Sprintf("%s: a single call (attempt %d) caused %s (%s)", in.Operation, a, plural(n, "effect", "effects"), effectIDs(effs)),
				Evidence: evidence(r, in),
			})
			continue
		}
		if f, ok := ackedBeforeEffect(r, in, effs); ok {
			fs = append(fs, f)
			continue
		}
		if !in.Acknowledged() || len(effs) > 0 || in.Role == record.RoleAfterDryRun {
			continue
		}
		if in.Role == record.RoleTwin {
			if o := r.Intent(in.Related); o != nil && o.Acknowledged() && mergedByPayload(r, o, in) {
				continue // merged: key.distinct reports it
			}
		}
		if answeredForAnother(r, in) {
			continue // a reused key's other payload was accepted: key.mismatch reports it
		}
		ok := in.FirstOK()
		// What acknowledged it: a status and an effect field, where the
		// reply had them (a consumer's ack has neither).
		var said []string
		if ok.Status != 0 {
			said = append(said, fmt.Sprint(ok.Status))
		}
		if ok.HasEffect {
			said = append(said, fmt.Sprintf("effect %q", ok.Effect))
		}
		msg := in.Operation + ": acknowledged"
		if len(said) > 0 {
			msg += " (" + strings.Join(said, ", ") + ")"
		}
		msg += " but no side effect was recorded: the intent was lost"
		if in.Faulted() {
			msg += fmt.Sprintf(" after %s (attempts: %s)", firstFault(in), statuses(in))
		}
		if hasBrokerTrace(in) {
			msg += "; what the broker did: " + brokerTrace(in)
		}
		if len(r.Ledger) == 0 {
			msg += "; no effect at all reached the fakes: check that the target is pointed at them"
		}
		fs = append(fs, record.Finding{Check: CheckExactlyOnce, Severity: record.Critical, Operation: in.Operation, Fault: firstFault(in), Message: msg, Evidence: evidence(r, in)})
	}
	if f, ok := unmarkedEffects(r); ok {
		fs = append(fs, f)
	}
	return fs, applicable
}

// ackedBeforeEffect finds a consumer's event acknowledged before its
// effect was recorded: none of its effects was there when its last
// attempt ended with the ack (the broker had the ack; the fakes had
// recorded nothing, or its observers, read then, found nothing), and
// each came later (an observer read again before the run ended found
// it). No event was lost here, but a crash between the ack and the
// effect would lose it: the broker has nothing left to deliver again. An
// observer that shows effects late (a replica, a search index) looks the
// same, and the finding says so.
func ackedBeforeEffect(r *record.Record, in *record.Intent, effs []fakes.Effect) (record.Finding, bool) {
	if len(effs) == 0 || len(in.Attempts) == 0 || !hasBrokerTrace(in) {
		return record.Finding{}, false
	}
	last := in.Attempts[len(in.Attempts)-1]
	if last.Outcome != record.OK {
		return record.Finding{}, false
	}
	observed := false
	for _, e := range effs {
		if e.Seq <= last.LedgerAfter {
			return record.Finding{}, false
		}
		observed = observed || e.Observed
	}
	msg := in.Operation + ": acknowledged before its effect was recorded"
	if in.Faulted() {
		msg += fmt.Sprintf(" (under %s)", firstFault(in))
	}
	msg += fmt.Sprintf(": when the broker had the ack, %s, and %s came only later: no event was lost here, but a crash between the ack and the effect loses it, since the broker has nothing left to deliver again; what the broker did: %s. Acknowledge once the effect is recorded",
		map[bool]string{true: "the observers, read then, found nothing", false: "nothing had been recorded"}[observed], effectIDs(effs), brokerTrace(in))
	if observed {
		msg += "; if the consumer already does, its observer shows effects late: give the observer a settle"
	}
	return record.Finding{Check: CheckExactlyOnce, Severity: record.Major, Operation: in.Operation, Fault: firstFault(in), Message: msg, Evidence: evidence(r, in)}, true
}

// unmarkedEffects finds the effects the fakes recorded while the target
// handled one of the record's mutating calls that carry no marker at all,
// of a kind whose other effects carry their intent's: the target left the
// request's marker off those calls. No intent can be charged with them,
// so a duplicate among them, or a call made again on a retry, goes
// unseen; a target that decides which calls carry the marker would
// decide its own verdict. It is a major finding,
// not a critical one: what they duplicate, if anything, is unknown. An
// effect made by idemcheck's own filler events carries a marker of no
// intent, and an observer's effect is the target's own record: neither
// is counted.
func unmarkedEffects(r *record.Record) (record.Finding, bool) {
	type window struct {
		in            *record.Intent
		before, after int64
	}
	var wins, reads []window
	for i := range r.Intents {
		in := &r.Intents[i]
		for _, a := range in.Attempts {
			if a.LedgerAfter <= a.LedgerBefore {
				continue
			}
			if in.Mutating {
				wins = append(wins, window{in, a.LedgerBefore, a.LedgerAfter})
			} else {
				reads = append(reads, window{in, a.LedgerBefore, a.LedgerAfter})
			}
		}
	}
	in := func(e fakes.Effect, ws []window) *record.Intent {
		for _, w := range ws {
			if e.Seq > w.before && e.Seq <= w.after {
				return w.in
			}
		}
		return nil
	}
	// The kinds of effect the target marks: an unmarked effect of another
	// kind (a customer created beside a charge that carries the marker)
	// is how the target calls that downstream, not a call it hid.
	markers := map[string]bool{}
	for _, x := range r.Intents {
		markers[x.Marker] = true
	}
	marks := map[[2]string]bool{}
	for _, e := range r.Ledger {
		if explained(e, markers) {
			marks[[2]string{e.Fake, e.Kind}] = true
		}
	}
	// alone returns the intent of a mutating call during which e was
	// recorded, unless a marked effect of e's kind made by such a call in
	// that time excuses it (see excuses): an unmarked fee beside each
	// marked charge comes with the call that acts, not with a retry that
	// says it did nothing.
	type made struct{ marker, fake, kind string }
	seqs := map[made][]int64{} // the marked effects of each intent, by kind
	for _, m := range r.Ledger {
		for _, mk := range m.Markers {
			if markers[mk] {
				k := made{mk, m.Fake, m.Kind}
				seqs[k] = append(seqs[k], m.Seq)
			}
		}
	}
	// Each marked effect excuses one unmarked effect of its kind recorded
	// during the same call: a fee beside each charge, not the unmarked
	// charges of the copies of a burst that overlap the one that acted.
	excuses := map[made]int{}
	for k, v := range seqs {
		excuses[k] = len(v)
	}
	alone := func(e fakes.Effect) *record.Intent {
		var found *record.Intent
		for _, w := range wins {
			if e.Seq <= w.before || e.Seq > w.after {
				continue
			}
			k := made{w.in.Marker, e.Fake, e.Kind}
			for _, q := range seqs[k] {
				if q > w.before && q <= w.after && excuses[k] > 0 {
					excuses[k]--
					return nil
				}
			}
			if found == nil {
				found = w.in
			}
		}
		return found
	}
	var during *record.Intent
	var unmarked []fakes.Effect
	for _, e := range r.Ledger {
		if len(e.Markers) > 0 || e.Observed || e.Seq == 0 || in(e, reads) != nil || !marks[[2]string{e.Fake, e.Kind}] {
			continue // marked, the target's own record, a read's (safe.readonly's), or of a kind it never marks
		}
		if x := alone(e); x != nil {
			if during == nil {
				during = x
			}
			unmarked = append(unmarked, e)
		}
	}
	if len(unmarked) == 0 {
		return record.Finding{}, false
	}
	kinds := map[string]int{}
	var order []string
	for _, e := range unmarked {
		k := e.Fake + " " + e.Kind
		if kinds[k] == 0 {
			order = append(order, k)
		}
		kinds[k]++
	}
	var what []string
	for _, k := range order {
		what = append(what, fmt.Sprintf("%s ×%d", k, kinds[k]))
	}
	msg := fmt.Sprintf("%d of the %s the fakes recorded while the target handled its calls carried no marker (%s), though the target's other effects of that kind carry their request's: it left the marker off those calls, so they cannot be attributed to an intent, and a duplicate among them, or a call made again on a retry, goes unseen; pass what carries the marker (the description, the metadata) on every such call",
		len(unmarked), plural(len(r.Ledger), "effect", "effects"), strings.Join(what, ", "))
	return record.Finding{Check: CheckExactlyOnce, Severity: record.Major, Operation: during.Operation, Message: during.Operation + ": " + msg,
		Evidence: evidence(r, during)}, true
}

// answeredForAnother says whether in was first acknowledged only after
// another payload sent with its key (a mismatch intent of in) had been:
// the target held the key for that payload, and answered in with its
// result. That in made no effect of its own then follows from the
// reused key being accepted with another payload, which key.mismatch
// judges, not from a lost intent.
func answeredForAnother(r *record.Record, in *record.Intent) bool {
	ok := in.FirstOK()
	if ok == nil {
		return false
	}
	for i := range r.Intents {
		m := &r.Intents[i]
		if m.Role != record.RoleMismatch || m.Related != in.ID || m.Key != in.Key {
			continue
		}
		if mok := m.FirstOK(); mok != nil && mok.End.Before(ok.Start) {
			return true
		}
	}
	return false
}

// actedTwice returns how many of the intent's effects one call caused, and
// which attempt, when a call without any fault caused more than one. Under
// a fault the target may retry downstream by itself: that is
// downstream.propagation's to judge.
func actedTwice(in *record.Intent, effs []fakes.Effect) (int, int) {
	if in.Faulted() || repeated(effs) < 2 {
		return 0, 0
	}
	if len(in.Attempts) == 1 && !in.Attempts[0].Burst {
		return repeated(effs), 1
	}
	for _, a := range in.Attempts {
		if a.Burst {
			continue
		}
		var during []fakes.Effect
		for _, e := range effs {
			if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
				during = append(during, e)
			}
		}
		if n := repeated(during); n > 1 {
			return n, a.N
		}
	}
	return 0, 0
}

// repeated returns the largest number of effects of one kind (the same
// fake and kind) among effs: an intent may cause a charge and an email,
// but two charges are a duplicate.
func repeated(effs []fakes.Effect) int {
	counts := map[[2]string]int{}
	most := 0
	for _, e := range effs {
		k := [2]string{e.Fake, e.Kind}
		counts[k]++
		most = max(most, counts[k])
	}
	return most
}
