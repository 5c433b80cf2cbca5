package checks

import (
	"fmt"
	"sort"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

var retryLate = Invariant{
	ID:       CheckRetryLate,
	Property: "a key is remembered long after its request: a retry after many other keys, or after a delay, causes no second effect",
	Level:    1,
	// A target without a mutating operation has nothing to retry late.
	Optional: true,
	Probes:   lateProbes,
	Skip: func(*record.Record) string {
		return "no intent was retried late (the target has no mutating operation)"
	},
	Eval: evalRetryLate,
}

// lateDistances are the numbers of other keys after which the probe
// retries an intent besides its first: enough to say between which two
// the store forgot, at a handful of extra retries.
var lateDistances = []int{1, 2, 4, 8, 16, 32, 64}

// lateProbes makes one intent of the target's first mutating operation,
// then pc.Late.LateKeys intents with fresh keys, and retries the first
// once pc.Late.LateDelay has passed since it succeeded. Some of the
// fresh-keyed intents are retried too, newest first, so that the finding
// can say after how many other keys the store forgot: the intent after
// which d others were sent, for each d of lateDistances below LateKeys.
func lateProbes(pc ProbeContext) []Probe {
	if !pc.Op.Mutating {
		return nil
	}
	pc.Late = pc.Late.WithDefaults()
	for _, op := range pc.Ops {
		if op.Mutating && op.Name != pc.Op.Name {
			return nil // one operation is enough: the store is the target's
		}
		if op.Mutating {
			break
		}
	}
	k := pc.Late.LateKeys
	first := Fresh(record.RoleLate, pc.Op.Name)
	first.UntilOK = true
	steps := []Step{first}
	late := map[int]bool{} // step index → retried
	for j := 1; j <= k; j++ {
		s := Fresh(record.RoleFiller, pc.Op.Name)
		for _, d := range lateDistances {
			if d == k-j {
				s.Role, s.UntilOK = record.RoleLate, true
				late[j] = true
			}
		}
		steps = append(steps, s)
	}
	// Newest first: a forgotten key's retry stores it again and may push
	// out an older one, never a newer one still to be retried.
	var order []int
	for j := k; j >= 1; j-- {
		if late[j] {
			order = append(order, j)
		}
	}
	for _, j := range append(order, 0) {
		// Each retry comes at least the delay after its intent succeeded:
		// the first waits, the others' time has passed by then.
		steps = append(steps, Step{Role: record.RoleLate, Op: pc.Op.Name, KeyFrom: j, InputsFrom: j, Again: true, Repeat: 1,
			WaitSince: pc.Late.lateWait()})
	}
	// The whole probe runs after every other probe, so that no other
	// probe's keys come between an intent and its late retry: the counts
	// of other keys, and the delay, are the probe's own.
	return []Probe{{Name: "late retry", Steps: steps, Tail: len(steps)}}
}

// lateRetry is what one late retry showed.
type lateRetry struct {
	in *record.Intent
	// others is how many other keys were first sent between the intent's
	// success and its late retry; after is how long it was.
	others int
	after  time.Duration
	// first and retry are the intent's first success and its late retry.
	first, retry *record.Attempt
}

// newResult says whether the late retry was answered as a new result of
// its own making: it says it acted, and names another result than the
// intent's first success did. A downstream that de-duplicated by the key
// passed on hides the duplicate from the ledger; the target's own answer
// does not.
//
// It is not one when another payload took the key in between (the target
// replays what the key now holds: key.mismatch's finding), nor when an
// observer found the target's own record of the intent once, nor for an
// answer that says it updated or deleted (an upsert run again duplicates
// nothing).
func (lr lateRetry) newResult(r *record.Record) bool {
	if lr.retry.Outcome != record.OK || lr.retry.Effect != "created" ||
		lr.retry.Identity == "" || lr.first.Identity == "" || lr.retry.Identity == lr.first.Identity {
		return false
	}
	if keyTakenByAnother(r, lr.in) {
		return false
	}
	for _, e := range r.EffectsOf(lr.in) {
		if e.Observed {
			return false // the target's own data says how often it acted
		}
	}
	return true
}

func evalRetryLate(r *record.Record) ([]record.Finding, bool) {
	applicable := false
	forgot := map[string][]lateRetry{}
	kept := map[string][]lateRetry{}
	var ops []string
	for _, in := range intentsByRole(r, record.RoleLate) {
		ok := in.FirstOK()
		if !in.Mutating || ok == nil {
			continue
		}
		// The late retry is the attempt after the first success.
		var retry *record.Attempt
		for i := range in.Attempts {
			if &in.Attempts[i] == ok && i+1 < len(in.Attempts) {
				retry = &in.Attempts[i+1]
			}
		}
		if retry == nil {
			continue
		}
		applicable = true
		lr := lateRetry{in: in, others: otherKeys(r, in, ok.End, retry.Start), after: retry.Start.Sub(ok.End), first: ok, retry: retry}
		if _, seen := forgot[in.Operation]; !seen {
			if _, seen := kept[in.Operation]; !seen {
				ops = append(ops, in.Operation)
			}
		}
		effs := r.EffectsOf(in)
		switch {
		case repeated(effs) > 1 && anyAfter(effs, retry.LedgerBefore):
			// Only an effect the late retry caused says the store forgot:
			// a duplicate of the intent's first attempts, before it
			// succeeded, is retry.sequential's or a fault check's.
			forgot[in.Operation] = append(forgot[in.Operation], lr)
		case lr.newResult(r):
			forgot[in.Operation] = append(forgot[in.Operation], lr)
		case retry.Outcome == record.OK:
			kept[in.Operation] = append(kept[in.Operation], lr)
		}
	}
	var fs []record.Finding
	for _, op := range ops {
		if len(forgot[op]) == 0 {
			continue
		}
		fs = append(fs, lateFinding(r, op, forgot[op], kept[op]))
	}
	return fs, applicable
}

// lateFinding reports the retention a store showed: the late retry after
// the fewest other keys that caused an effect again, and the one after
// the most other keys (fewer than that) that still replayed.
func lateFinding(r *record.Record, op string, forgot, kept []lateRetry) record.Finding {
	sort.Slice(forgot, func(i, j int) bool { return forgot[i].others < forgot[j].others })
	first := forgot[0]
	effs := r.EffectsOf(first.in)
	var best *lateRetry
	for i := range kept {
		if kept[i].others < first.others && (best == nil || kept[i].others > best.others) {
			best = &kept[i]
		}
	}
	// The time said is the wait the run asked for, a lower bound: the
	// measured one differs from run to run.
	when := ""
	if first.in.Waited > 0 {
		when = " and at least " + first.in.Waited.String()
	}
	msg := fmt.Sprintf("%s: the retry with the same key after %s%s caused %s (%s): the key store forgot the key",
		op, plural(first.others, "other key", "other keys"), when,
		plural(len(effs), "effect", "effects"), effectIDs(effs))
	again := againPhrase(effs)
	if repeated(effs) < 2 {
		// Told by the target's answer, not by the ledger.
		msg = fmt.Sprintf("%s: the retry with the same key after %s%s was answered as a new result (%s, %q) where the intent's first success was %s: the key store forgot the key, and the target acted again",
			op, plural(first.others, "other key", "other keys"), when, first.retry.Identity, first.retry.Effect, first.first.Identity)
		again = "made a new result"
		if len(effs) > 0 {
			again += "; its downstream call was not made again, or not acted on: " + effectIDs(effs) + " alone was recorded"
		}
		effs = nil
	}
	down := downstreamCause(effs)
	switch cause := duplicateCause(r, first.in); {
	case down != "":
		// The fakes' keys say which call repeated: not the key store.
		msg = withCause(msg, ": the key store forgot the key", down)
	case cause != "" && cause != causeAtomic && effs != nil:
		// Who served the attempts says why, not how many keys it keeps.
		msg = withCause(msg, ": the key store forgot the key", cause)
	case best != nil && best.others+1 == first.others:
		msg += fmt.Sprintf("; a retry after %s still replayed: it keeps %d keys",
			plural(best.others, "other key", "other keys"), first.others)
	case best != nil:
		msg += fmt.Sprintf("; a retry after %s still replayed: it keeps somewhere between %d and %d keys",
			plural(best.others, "other key", "other keys"), best.others+1, first.others)
	case first.others == 0 && first.in.Waited > 0:
		msg += fmt.Sprintf(" with no other key in between: it keeps keys for less than %s, or none at all", first.in.Waited)
	case first.others <= lateDistances[0] && first.in.Waited > 0:
		msg += fmt.Sprintf(" even after a single other key: it keeps keys for less than %s, or none at all", first.in.Waited)
	}
	msg += fmt.Sprintf(" (%d of %d late retries %s)", len(forgot), len(forgot)+len(kept), again)
	if down == "" {
		msg += ". Keep every key for as long as clients may retry (a day is usual), in a store that neither evicts nor expires it sooner"
	}
	ins := make([]*record.Intent, 0, len(forgot))
	for _, f := range forgot {
		ins = append(ins, f.in)
	}
	return record.Finding{Check: CheckRetryLate, Severity: record.Critical, Operation: op, Message: msg, Evidence: evidence(r, ins...)}
}

// otherKeys counts the distinct keys, other than in's, whose intents were
// first attempted between from and to.
func otherKeys(r *record.Record, in *record.Intent, from, to time.Time) int {
	seen := map[string]bool{}
	for i := range r.Intents {
		o := &r.Intents[i]
		if o.Key == "" || o.Key == in.Key || len(o.Attempts) == 0 {
			continue
		}
		if s := o.Attempts[0].Start; s.After(from) && s.Before(to) {
			seen[o.Key] = true
		}
	}
	return len(seen)
}

// anyAfter reports whether one of effs was recorded after the ledger's
// sequence number seq.
func anyAfter(effs []fakes.Effect, seq int64) bool {
	for _, e := range effs {
		if e.Seq > seq {
			return true
		}
	}
	return false
}
