package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
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
		if owner(r, in) != CheckRetrySequential || len(in.Attempts) < 2 || !in.Mutating {
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
		if !in.Mutating || owner(r, in) != CheckRetryAfterFault {
			continue
		}
		applicable = true
		fault := firstFault(in)
		effs := r.EffectsOf(in)
		switch {
		case repeated(effs) > 1:
			cause := effectCause(in, effs)
			fs = append(fs, record.Finding{
				Check: CheckRetryAfterFault, Severity: record.Critical, Operation: in.Operation, Fault: faultName(cause),
				Message: fmt.Sprintf("%s: after %s, retrying with the same key caused %s (%s); attempts: %s",
					in.Operation, faultPoint(cause), plural(len(effs), "effect", "effects"), effectIDs(effs), statuses(in)) + afterFaultCause(r, in, cause),
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

// afterFaultCause is causeSuffix, or, when the evidence of who served the
// attempts says nothing, what a client that left (disconnected, or gave
// up at its timeout) says: the target went on with the first attempt's
// work after its client left, and the retry came before that work had
// kept the key.
func afterFaultCause(r *record.Record, in *record.Intent, cause *record.Attempt) string {
	if c := causeSuffix(r, in); c != "" {
		return c
	}
	if cause == nil || cause.Fault != faults.NameClientDisconnect && cause.Fault != faults.NameClientTimeout || !cause.Forwarded {
		return ""
	}
	if ignoredAlone(r, in.Operation) {
		return "; " + causeIgnored
	}
	return "; " + causeAbandoned + unkeyedAlso(r.EffectsOf(in))
}

// causeAbandoned is why a retry after the client left acted again.
const causeAbandoned = "the target went on with the first attempt after its client left, and the retry did not find the key: " +
	"claim the key before the work begins (a retry then waits, or is told 409), and record the outcome under it whatever the client does " +
	"(the client leaving must neither stop nor skip that record)"

// unkeyedAlso names the downstream calls among effs made more than once
// without an idempotency key, which one would have kept to one: "" when
// none was.
func unkeyedAlso(effs []fakes.Effect) string {
	order, byKind := groupByKind(effs)
	var calls []string
	for _, k := range order {
		es := byKind[k]
		if len(es) > 1 && !es[0].Observed && !keyless(es) && slices.ContainsFunc(es, func(e fakes.Effect) bool { return e.Key == "" }) {
			calls = append(calls, "the "+k.fake+" "+callNoun(k))
		}
	}
	if len(calls) == 0 {
		return ""
	}
	return "; " + strings.Join(calls, " and ") + " also went with no idempotency key, which would have kept it to one"
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

// firstFaulted is the intent's first faulted attempt whose fault acted;
// when none acted, its first faulted attempt (a finding that names it is
// then left out, see examine); nil when none was faulted.
func firstFaulted(in *record.Intent) *record.Attempt {
	var first *record.Attempt
	for i := range in.Attempts {
		a := &in.Attempts[i]
		if a.Fault == "" {
			continue
		}
		if !a.NotFired {
			return a
		}
		if first == nil {
			first = a
		}
	}
	return first
}

// effectCause is the attempt whose fault made the duplicate effects
// effs of in: the one under way when the first of them landed (the last
// attempt to begin before it), when its fault acted; the caller was not
// told of that effect, and a retry made another. A fault before it did
// not make the duplicate: after a 503 before the charge and then a 503
// after it, the duplicate is the second's. Otherwise (the first effect
// landed while an unfaulted attempt ran) it is firstFaulted.
func effectCause(in *record.Intent, effs []fakes.Effect) *record.Attempt {
	var first int64
	for _, e := range effs {
		if e.Seq > 0 && (first == 0 || e.Seq < first) {
			first = e.Seq
		}
	}
	var during *record.Attempt
	for i := range in.Attempts {
		if a := &in.Attempts[i]; first > 0 && a.LedgerBefore < first {
			during = a
		}
	}
	if during != nil && during.Fault != "" && !during.NotFired {
		return during
	}
	return firstFaulted(in)
}

// firstFault names the fault of the intent's first faulted attempt
// (firstFaulted).
func firstFault(in *record.Intent) string {
	return faultName(firstFaulted(in))
}

// faultName names a's fault; "" for nil.
func faultName(a *record.Attempt) string {
	if a == nil {
		return ""
	}
	return a.Fault
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

// faultAt names the fault of the intent's first faulted attempt
// (firstFaulted) as a finding says it (faultPoint).
func faultAt(in *record.Intent) string {
	return faultPoint(firstFaulted(in))
}

// faultPoint names a's fault as a finding says it: with the effect point
// it was armed at, when the operation made several downstream calls
// ("crash-after-effect at email"); "" for nil.
func faultPoint(a *record.Attempt) string {
	switch {
	case a == nil:
		return ""
	case a.Point != nil:
		return a.Fault + " at " + a.Point.String()
	}
	return a.Fault
}
