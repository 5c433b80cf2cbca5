package checks

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

var dependencyRecovery = Invariant{
	ID:       CheckDependencyRecovery,
	Property: "after the target's own database fails, stalls, restarts or loses the answer to a commit, retries with the same key complete the intent, once, when it has recovered",
	Level:    2,
	Optional: true,
	Faults:   []faults.Class{faults.ClassDependency},
	Probes:   faultProbes,
	Skip:     faultSkipFor(CheckDependencyRecovery, faults.ClassDependency),
	Eval:     evalDependencyRecovery,
}

// evalDependencyRecovery judges the intents whose first attempt met a
// dependency fault: one effect, and an intent completed once the
// dependency is back. A failure the target keeps answering under the key
// after that is a failure replayed: the client can never complete the
// intent.
func evalDependencyRecovery(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, keyedRoles...) {
		if !in.Mutating || owner(r, in) != CheckDependencyRecovery {
			continue
		}
		applicable = true
		fault := firstFault(in)
		effs := r.EffectsOf(in)
		switch {
		case repeated(effs) > 1:
			fs = append(fs, record.Finding{
				Check: CheckDependencyRecovery, Severity: record.Critical, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s, retrying with the same key caused %s (%s): %s; attempts: %s",
					in.Operation, fault, plural(len(effs), "effect", "effects"), effectIDs(effs), depDiagnosis(fault, effs), statuses(in)),
				Evidence: evidence(r, in),
			})
		case !in.Acknowledged() && !in.GaveUp && !keyTakenByAnother(r, in) && len(in.Attempts) > 1:
			fs = append(fs, record.Finding{Check: CheckDependencyRecovery, Severity: record.Major, Operation: in.Operation, Fault: fault,
				Message: neverCompleted(in, fault), Evidence: evidence(r, in)})
		}
	}
	return fs, applicable
}

// neverCompleted says how an intent whose database recovered was never
// completed: the first failure replayed for every retry, or failures of
// their own.
func neverCompleted(in *record.Intent, fault string) string {
	retries := in.Attempts[1:]
	first, last := retries[0], retries[len(retries)-1]
	span := last.End.Sub(first.Start).Round(time.Millisecond)
	failed := in.Attempts[0]
	replayed := failed.Status != 0 && !failed.Withheld
	for _, a := range retries {
		if a.Status != failed.Status || a.Body != failed.Body {
			replayed = false
		}
	}
	if replayed {
		return fmt.Sprintf("%s: the failure (%d) that %s caused was replayed under the key for every retry once the database had recovered: %s over %s, and still replayed when the client gave up; the target stores a failure as the key's reply, so the client can never complete the intent: keep only what completed (or a final client error) under the key",
			in.Operation, failed.Status, fault, plural(len(retries), "retry", "retries"), span)
	}
	return fmt.Sprintf("%s: after %s and the database's recovery, %s with the same key over %s never succeeded (%s)",
		in.Operation, fault, plural(len(retries), "retry", "retries"), span, statuses(in))
}

// keyNotCommitted is the cause of a duplicate after the target's commit
// was made but its answer lost (the connection reset, the target crashed).
const keyNotCommitted = "the effect was committed but the retry did not find the key: the key and its reply are not written in the transaction that writes the effect"

// depDiagnosis says what a duplicate after a dependency fault shows: a
// downstream call repeated without the key, when its other effects were
// made once (the database kept the key), else what the fault points at.
func depDiagnosis(fault string, effs []fakes.Effect) string {
	if c := downstreamCause(effs); c != "" {
		return c
	}
	switch fault {
	case faults.NameDepStall:
		return "the retry ran the intent again while the first attempt's statements were still held by the stalled database: the key's lifetime (its in-progress lease) is shorter than a stalled request, or the key is not held until the first attempt ends"
	case faults.NameDepResetAfterCommit:
		return keyNotCommitted
	}
	return "the failed attempt's effect was not seen by the retry under the same key"
}
