package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

var crashRecovery = Invariant{
	ID:       CheckCrashRecovery,
	Property: "after a crash and restart, retries complete the intent exactly once and are not stuck in progress",
	Level:    2,
	Optional: true,
	Faults:   []faults.Class{faults.ClassCrash},
	Probes:   faultProbes,
	Skip:     faultSkipFor(CheckCrashRecovery, faults.ClassCrash),
	Eval:     evalCrashRecovery,
}

var downstreamPropagation = Invariant{
	ID:       CheckDownstream,
	Property: "when the downstream call fails ambiguously and is retried, the downstream sees one effect (the key was passed on)",
	Level:    2,
	Optional: true,
	Faults:   []faults.Class{faults.ClassDownstreamAmbiguous},
	Probes:   faultProbes,
	Skip:     faultSkipFor(CheckDownstream, faults.ClassDownstreamAmbiguous),
	Eval:     evalDownstream,
}

// evalCrashRecovery judges the intents whose first attempt crashed the
// target: after the restart, the retries must complete it, with one effect.
func evalCrashRecovery(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, keyedRoles...) {
		if !in.Mutating || owner(r, in) != CheckCrashRecovery {
			continue
		}
		applicable = true
		fault := causeFault(in)
		// What came first: a crash fault and the restart it made, or a
		// restart from outside (a trial's step), then any fault.
		after, why := faultAt(in)+" and a restart", ": the key store did not survive the crash, or the key was not passed downstream"
		if fault == RestartCause {
			after, why = "a restart of the target between its attempts", causeSuffix(r, in)
			switch f := faultAt(in); {
			case f != "" && faultBeforeRestart(in):
				after = f + ", then " + after
			case f != "":
				after += " (then " + f + ")"
			}
		}
		effs := r.EffectsOf(in)
		if d := downstreamCause(effs); d != "" && fault != RestartCause {
			why = ": " + d // the fakes' keys say which of the two
		} else if d := smtpCause(effs); d != "" && fault != RestartCause {
			why = ": " + d // neither: the channel keeps no keys
		}
		switch {
		case repeated(effs) > 1:
			if fault != RestartCause {
				// Named by the attempt whose effect the caller was not
				// told of: the crash's, not a fault before it.
				cause := effectCause(in, effs)
				if cause != nil && !cause.Crashed && faults.Class(cause.FaultClass) != faults.ClassCrash {
					// A fault of another class came first (a trial's
					// reorder): the crash is what this check judges.
					for j := range in.Attempts {
						if in.Attempts[j].Crashed {
							cause = &in.Attempts[j]
							break
						}
					}
				}
				fault, after = faultName(cause), faultPoint(cause)+" and a restart"
				if fault == faults.NameCrashAfterCommit && downstreamCause(effs) == "" && smtpCause(effs) == "" {
					// The commit that carried the write was made: the key
					// was not in it.
					why = ": " + keyNotCommitted
					if r.Target.Caps().Redelivery {
						why = ": " + consumerNotCommitted
					}
				}
				if d := repeatedBeforeCrash(r, in, effs); d != "" {
					why = ": " + d
				}
			}
			fs = append(fs, record.Finding{
				Check: CheckCrashRecovery, Severity: record.Critical, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s, retrying with the same key caused %s (%s)%s; attempts: %s",
					in.Operation, after, plural(len(effs), "effect", "effects"), effectIDs(effs), why, statuses(in)),
				Evidence: evidence(r, in),
			})
		case !in.Acknowledged() && !in.GaveUp && !keyTakenByAnother(r, in):
			last := in.Attempts[len(in.Attempts)-1]
			msg := fmt.Sprintf("%s: after %s, %s with the same key never succeeded (%s)",
				in.Operation, after, plural(len(in.Attempts)-1, "retry", "retries"), statuses(in))
			if made := madeButNotAnswered(in, after, effs); made != "" {
				msg = made
			} else if busy(last.Status) && len(in.Attempts) > 1 {
				msg = fmt.Sprintf("%s: stuck in progress: after %s, the key was answered %d for %s (%s): an in-progress record outlived the process that held it: take it over once that process is gone, or give it a lease shorter than a client keeps retrying (retry.stuck_wait)",
					in.Operation, after, last.Status, last.End.Sub(in.Attempts[1].Start).Round(1e6), plural(len(in.Attempts)-1, "retry", "retries"))
			}
			fs = append(fs, record.Finding{Check: CheckCrashRecovery, Severity: record.Major, Operation: in.Operation, Fault: fault, Message: msg, Evidence: evidence(r, in)})
		}
	}
	return fs, applicable
}

// repeatedBeforeCrash says, when an attempt at in that the harness did
// not crash made the same kind of effect twice within its own time,
// before any crash, that the duplicate is that attempt's: a consumer
// given the event twice (a duplicate publish, a redelivery) acted on
// each, or a target acted twice on one request. The crash that came
// after did not make it. "" when no such attempt came first.
func repeatedBeforeCrash(r *record.Record, in *record.Intent, effs []fakes.Effect) string {
	for _, a := range in.Attempts {
		if a.Crashed {
			return ""
		}
		if _, ok := twiceWithin(a, effs); ok {
			under := ""
			if a.Fault != "" {
				under = " (" + a.Fault + ")"
			}
			if r.Target.Caps().Redelivery {
				return fmt.Sprintf("attempt %d%s made two of them on its own, before any crash: the broker gave the consumer the event more than once, and it acted on each copy: it does not recognise an event id it processed; record the event id as processed in the transaction that writes the effect (a unique event id, or a row of processed events)", a.N, under)
			}
			return fmt.Sprintf("attempt %d%s made two of them on its own, before any crash: the target acted twice on one request (a retry of its own, or of its client): the crash is not what repeated it", a.N, under)
		}
	}
	return ""
}

// evalDownstream judges the intents whose target saw an ambiguous
// downstream failure: the downstream must end with one effect.
func evalDownstream(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, keyedRoles...) {
		if !in.Mutating || owner(r, in) != CheckDownstream {
			continue
		}
		applicable = true
		fault := firstFault(in)
		effs := r.EffectsOf(in)
		switch {
		case repeated(effs) > 1:
			cause := effectCause(in, effs)
			who := "the downstream recorded"
			if slices.ContainsFunc(effs, func(e fakes.Effect) bool { return e.Observed }) {
				who = "the intent caused" // the target's own data counted too
			}
			fs = append(fs, record.Finding{
				Check: CheckDownstream, Severity: record.Critical, Operation: in.Operation, Fault: faultName(cause),
				Message: fmt.Sprintf("%s: after %s %s %s (%s): %s%s; attempts: %s",
					in.Operation, faultPoint(cause), who, plural(len(effs), "effect", "effects"), effectIDs(effs), keyDiagnosis(effs), resentWithin(r, in), statuses(in)),
				Evidence: evidence(r, in),
			})
		case !in.Acknowledged() && !in.GaveUp && !keyTakenByAnother(r, in):
			fs = append(fs, record.Finding{
				Check: CheckDownstream, Severity: record.Major, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s, %s with the same key never succeeded (%s)",
					in.Operation, faultAt(in), plural(len(in.Attempts), "attempt", "attempts"), statuses(in)),
				Evidence: evidence(r, in),
			})
		}
	}
	return fs, applicable
}

// resentWithin is what a finding adds when one attempt of in, whose
// downstream connection a fake dropped once it had acted
// (downstream-reset-after), made the same kind of effect more than once:
// the call was sent again inside the attempt, by the target's own retry
// or by its HTTP client, which no retry of idemcheck's caused. "" when no
// attempt did.
func resentWithin(r *record.Record, in *record.Intent) string {
	effs := r.EffectsOf(in)
	for _, a := range in.Attempts {
		if a.Fault != faults.NameDownstreamResetAfter || a.Burst {
			continue
		}
		if e, ok := twiceWithin(a, effs); ok {
			return fmt.Sprintf(". Two of them were made within one attempt (attempt %d), the second once the %s fake had dropped the connection that carried the first: the target sent the call again itself, by a retry of its own or through its HTTP client (Go's net/http sends a request that carries an Idempotency-Key header again on its own when a reused connection fails before the reply); a call whose answer was lost may have acted, and only a downstream that de-duplicates its key makes sending it again safe", a.N, e.Fake)
		}
	}
	return ""
}

// twiceWithin returns the second effect of effs of a kind (fake and
// kind) already made once within attempt a's time, and whether there was
// one: a made the same kind of effect twice.
func twiceWithin(a record.Attempt, effs []fakes.Effect) (fakes.Effect, bool) {
	n := map[[2]string]int{}
	for _, e := range effs {
		if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
			k := [2]string{e.Fake, e.Kind}
			if n[k]++; n[k] == 2 {
				return e, true
			}
		}
	}
	return fakes.Effect{}, false
}

// keyDiagnosis says, from the keys the fakes saw, why the downstream
// recorded the same intent twice.
func keyDiagnosis(effs []fakes.Effect) string {
	if c := downstreamCause(effs); c != "" {
		return c // names the call that repeated and the one that did not
	}
	if c := smtpCause(effs); c != "" {
		return c // no key would have stopped it
	}
	if c := ownRecordCause(effs); c != "" {
		return c // no downstream call at all
	}
	// Only the effects of the kind that was duplicated: a charge made
	// twice is not explained by the key its single email was sent with.
	kinds := map[[2]string]int{}
	for _, e := range effs {
		kinds[[2]string{e.Fake, e.Kind}]++
	}
	seen := map[string]bool{}
	var list []string
	for _, e := range effs {
		if kinds[[2]string{e.Fake, e.Kind}] < 2 {
			continue
		}
		if !seen[e.Key] {
			seen[e.Key] = true
			k := e.Key
			if k == "" {
				k = "none"
			}
			list = append(list, k)
		}
	}
	switch {
	case len(seen) > 1:
		return "the downstream was given a different key on each try (" + strings.Join(list, ", ") + ")"
	case !seen[""]:
		return "the downstream was given the same key (" + list[0] + ") but did not de-duplicate it"
	}
	return "the downstream was given no idempotency key"
}

// ownRecordCause explains a duplicate of the target's own records, found
// by an observer, of an intent that made no call to a fake: no key went
// downstream, and none would have helped: the record itself was written
// again. "" when a fake saw a call, another kind of record repeated too,
// or none did.
func ownRecordCause(effs []fakes.Effect) string {
	order, byKind := groupByKind(effs)
	if slices.ContainsFunc(effs, func(e fakes.Effect) bool { return !e.Observed }) {
		return "" // a call to a fake was made: what it was given may say more
	}
	var what string
	for _, k := range order {
		if len(byKind[k]) < 2 {
			continue
		}
		if what != "" {
			return ""
		}
		what = fmt.Sprintf("its own %s %s was written %d times: nothing in what it writes is unique to the intent", k.fake, k.kind, len(byKind[k]))
	}
	return what
}
