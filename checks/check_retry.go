package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

var retrySequential = Invariant{
	ID:       CheckRetrySequential,
	Property: "the same key sent twice causes one effect, and the second reply is a successful replay",
	Level:    1,
	Probes:   sequentialProbes,
	Eval:     evalRetrySequential,
}

var retryAfterFault = Invariant{
	ID:       CheckRetryAfterFault,
	Property: "after each fault, retrying with the same key until success leaves exactly one effect",
	Level:    2,
	Faults:   []faults.Class{faults.ClassClient, faults.ClassProxy, faults.ClassDownstream},
	Probes:   faultProbes,
	Skip:     faultSkipFor(CheckRetryAfterFault, faults.ClassClient, faults.ClassProxy, faults.ClassDownstream),
	Eval:     evalRetryAfterFault,
}

func evalRetrySequential(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, keyedRoles...) {
		if owner(in) != CheckRetrySequential || len(in.Attempts) < 2 || !in.Mutating {
			continue
		}
		applicable = true
		effs := r.EffectsOf(in)
		if n, _ := actedTwice(in, effs); n > 1 && n == repeated(effs) {
			continue // one call acted twice: exactly-once reports it
		}
		if repeated(effs) > 1 {
			fs = append(fs, record.Finding{
				Check: CheckRetrySequential, Severity: record.Critical, Operation: in.Operation,
				Message: notHonoured(r, in, fmt.Sprintf("%s: the same key sent %d times caused %s (%s): the key is not honoured",
					in.Operation, len(in.Attempts), plural(len(effs), "effect", "effects"), effectIDs(effs))),
				Evidence: evidence(r, in),
			})
			continue
		}
		if in.Attempts[0].Outcome != record.OK {
			continue
		}
		for _, a := range in.Attempts[1:] {
			if a.Outcome != record.OK {
				fs = append(fs, record.Finding{
					Check: CheckRetrySequential, Severity: record.Major, Operation: in.Operation,
					Message: fmt.Sprintf("%s: the retry of a completed request was answered %s (%s) instead of a replay: a client cannot tell it already succeeded",
						in.Operation, answerOf(a), short(a.Body, 80)),
					Evidence: evidence(r, in),
				})
				break
			}
		}
	}
	return fs, applicable
}

func evalRetryAfterFault(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	for _, in := range intentsByRole(r, keyedRoles...) {
		if !in.Mutating || owner(in) != CheckRetryAfterFault {
			continue
		}
		applicable = true
		fault := mainFault(in)
		effs := r.EffectsOf(in)
		switch {
		case repeated(effs) > 1:
			fs = append(fs, record.Finding{
				Check: CheckRetryAfterFault, Severity: record.Critical, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s, retrying with the same key caused %s (%s); attempts: %s",
					in.Operation, faultAt(in), plural(len(effs), "effect", "effects"), effectIDs(effs), statuses(in)) + causeSuffix(r, in),
				Evidence: evidence(r, in),
			})
		case !in.Acknowledged() && !in.GaveUp && !keyTakenByAnother(r, in):
			fs = append(fs, record.Finding{
				Check: CheckRetryAfterFault, Severity: record.Major, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s, %s with the same key never succeeded (%s): the intent cannot be completed safely",
					in.Operation, faultAt(in), plural(len(in.Attempts), "attempt", "attempts"), statuses(in)),
				Evidence: evidence(r, in),
			})
		}
	}
	return fs, applicable
}

// notHonoured ends msg, which says the key is not honoured, with why
// in's attempts duplicated: in place of that guess when the fakes' keys
// show a downstream call without a key repeated (the key was honoured
// where it was passed on), after it otherwise.
func notHonoured(r *record.Record, in *record.Intent, msg string) string {
	if c := downstreamCause(r.EffectsOf(in)); c != "" {
		return withCause(msg, ": the key is not honoured", c)
	}
	return msg + causeSuffix(r, in)
}

// keyTakenByAnother says whether another payload sent with in's key (a
// mismatch intent of in) was acknowledged while in never was: the target
// first saw the key with that payload (in's own attempts were lost on the
// way, or never reached it), holds the key for it, and refusing in's
// retries (422) is right, not a request that cannot be completed.
func keyTakenByAnother(r *record.Record, in *record.Intent) bool {
	for i := range r.Intents {
		m := &r.Intents[i]
		if m.Role == record.RoleMismatch && m.Related == in.ID && m.Key == in.Key && m.Acknowledged() {
			return true
		}
	}
	return false
}

// causeAttempt is the attempt whose fault a finding on in names: the
// first of its faulted attempts of the heaviest class (see classWeight),
// the one that decided who judges it (see owner); nil when none was
// faulted. A lighter fault before it did not make what is judged: after a
// 503 before the charge and then a 503 after it, the duplicate is the
// second's.
func causeAttempt(in *record.Intent) *record.Attempt {
	var cause *record.Attempt
	weight := 0
	for i := range in.Attempts {
		a := &in.Attempts[i]
		if a.Fault == "" {
			continue
		}
		w := 1
		if a.FaultClass != "" {
			w = classWeight(faults.Class(a.FaultClass))
		}
		if w > weight {
			cause, weight = a, w
		}
	}
	return cause
}

// mainFault names the fault of the intent's cause attempt (causeAttempt).
func mainFault(in *record.Intent) string {
	if a := causeAttempt(in); a != nil {
		return a.Fault
	}
	return ""
}

// short is s without surrounding white space (a tool's reply ends in a
// newline), cut to n bytes.
func short(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// faultAt names the fault of the intent's cause attempt (causeAttempt)
// as a finding says it: with the effect point it was armed at, when the
// operation made several downstream calls ("crash-after-effect at
// email").
func faultAt(in *record.Intent) string {
	a := causeAttempt(in)
	switch {
	case a == nil:
		return ""
	case a.Point != nil:
		return a.Fault + " at " + a.Point.String()
	}
	return a.Fault
}
