package checks

import (
	"fmt"
	"slices"
	"strings"
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
			how := "retrying with the same key caused"
			if len(in.Attempts) == 1 {
				how = "its one attempt caused"
			}
			fs = append(fs, record.Finding{
				Check: CheckDependencyRecovery, Severity: record.Critical, Operation: in.Operation, Fault: fault,
				Message: fmt.Sprintf("%s: after %s, %s %s (%s): %s; attempts: %s",
					in.Operation, fault, how, plural(len(effs), "effect", "effects"), effectIDs(effs), depDiagnosis(r, in, fault, effs), statuses(in)),
				Evidence: evidence(r, in),
			})
		case !in.Acknowledged() && !in.GaveUp && !keyTakenByAnother(r, in) && len(in.Attempts) > 1:
			fs = append(fs, record.Finding{Check: CheckDependencyRecovery, Severity: record.Major, Operation: in.Operation, Fault: fault,
				Message: neverCompleted(in, fault, effs), Evidence: evidence(r, in)})
		}
	}
	return fs, applicable
}

// neverCompleted says how an intent whose database recovered was never
// completed: the first failure replayed for every retry, or failures of
// their own; and, when its effect was made all the same, that the caller
// was told it failed.
func neverCompleted(in *record.Intent, fault string, effs []fakes.Effect) string {
	retries := in.Attempts[1:]
	first, last := retries[0], retries[len(retries)-1]
	span := last.End.Sub(first.Start).Round(time.Millisecond)
	failed := in.Attempts[0]
	// A replay repeats the failure's status, and its body, or one body
	// for every retry that says it did nothing ("noop"): a stored reply
	// may be marked as a replay, and is the same each time.
	replayed := failed.Status != 0 && !failed.Withheld
	for _, a := range retries {
		same := a.Body == failed.Body || (a.Effect == "noop" && a.Body == first.Body)
		if a.Status != failed.Status || !same {
			replayed = false
		}
	}
	if replayed {
		made := ""
		if len(effs) > 0 {
			made = fmt.Sprintf(", though its effect was made (%s): the caller is told the intent failed, and will make it again under a new key", effectIDs(effs))
		}
		return fmt.Sprintf("%s: the failure (%d) that %s caused was replayed under the key for every retry once the database had recovered: %s over %s, and still replayed when the client gave up%s; the target stores a failure as the key's reply, so the client can never complete the intent: keep only what completed (or a final client error) under the key",
			in.Operation, failed.Status, fault, plural(len(retries), "retry", "retries"), span, made)
	}
	if msg := madeButNotAnswered(in, fault+" and the database's recovery", effs); msg != "" {
		return msg
	}
	if busy(last.Status) && len(effs) == 0 {
		return fmt.Sprintf("%s: stuck in progress: after %s and the database's recovery, the key was answered %d for %s (%s), and nothing was done: the attempt that failed left its in-progress record behind: release it when an attempt fails, or give it a lease shorter than a client keeps retrying (retry.stuck_wait)",
			in.Operation, fault, last.Status, span, plural(len(retries), "retry", "retries"))
	}
	why := ""
	if len(effs) == 0 {
		why = ": each retry failed anew and nothing was made: unless the target keeps its failure under the key (their replies differed, so none was seen replayed), it did not recover once the database was back. A connection pool that keeps the connections the database closed hands each out once more, and a request fails on each: have the pool check a connection before use, or retry a statement that failed on a broken connection before it was sent (a larger retry.max_attempts shows whether it recovers later)"
	}
	return fmt.Sprintf("%s: after %s and the database's recovery, %s with the same key over %s never succeeded (%s)%s",
		in.Operation, fault, plural(len(retries), "retry", "retries"), span, statuses(in), why)
}

// madeButNotAnswered says what an intent shows whose effect was made but
// whose retries were never answered with it, after what happened to it
// (after): still in progress, or failures. "" when no effect of it was
// recorded, or when the retries were kept waiting and the effect is a
// downstream call's (a lease on the key, with the key passed on, is the
// fix then). An in-progress record that outlived the attempt which made
// the target's own record has no reply to give: a lease on it would let
// a retry act again, so the advice is to store the reply with the effect.
func madeButNotAnswered(in *record.Intent, after string, effs []fakes.Effect) string {
	if len(effs) == 0 || len(in.Attempts) < 2 {
		return ""
	}
	retries := in.Attempts[1:]
	first, last := retries[0], retries[len(retries)-1]
	span := last.End.Sub(first.Start).Round(time.Millisecond)
	if busy(last.Status) {
		if !slices.ContainsFunc(effs, func(e fakes.Effect) bool { return e.Observed }) {
			return ""
		}
		return fmt.Sprintf("%s: stuck in progress: after %s, its effect was made (%s), but the key was answered %d for %s (%s): the effect was committed without the key's reply, so no retry can be answered with it, and once the in-progress record expires or is taken over a retry makes the effect again: write the key's reply in the transaction that writes the effect (a longer retry.stuck_wait shows what a retry does then)",
			in.Operation, after, effectIDs(effs), last.Status, span, plural(len(retries), "retry", "retries"))
	}
	return fmt.Sprintf("%s: after %s, its effect was made (%s), but %s with the same key over %s never succeeded (%s): the caller is told the intent failed though it was done, and will do it again under a new key: answer a retry with the result of what was done",
		in.Operation, after, effectIDs(effs), plural(len(retries), "retry", "retries"), span, statuses(in))
}

// keyNotCommitted is the cause of a duplicate after the target's commit
// was made but its answer lost (the connection reset, the target crashed).
const keyNotCommitted = "the effect was committed but the retry did not find the key: the key and its reply are not written in the transaction that writes the effect"

// The causes of a queue consumer's duplicates after a commit whose
// answer was lost, or a crash after it, and after a stalled database: its
// retries are the broker's redeliveries of the event.
const (
	consumerNotCommitted = "the effect was committed but its redelivery was not recognised as processed: record the event id as processed in the transaction that writes the effect (a unique event id, or a row of processed events; in Redis, one script or MULTI that sets the mark and writes the effect)"
	consumerStalled      = "the broker delivered the event again while the first delivery's statements were held by the stalled database, past its ack deadline, and the second delivery acted too: claim the event id in the database before the work (a unique event id makes a second delivery wait for the first's transaction, then find its row)"
)

// The causes of a duplicate made while the first attempt's statements
// were held by a stalled database: the key was not claimed before the
// work (the bursts of the operation raced too), or it was claimed but the
// claim did not outlast the stall.
const (
	stalledRaced = "the retry ran the intent again while the first attempt's statements were still held by the stalled database: the key is not claimed before the work begins (same-key requests released together made more than one effect too: it is checked and claimed in two steps); claim it atomically, before the first statement, so that a retry finds it in progress"
	stalledLease = "the retry ran the intent again while the first attempt's statements were still held by the stalled database: the key's lifetime (its in-progress lease) is shorter than a stalled request, or the key is not held until the first attempt ends"
)

// stalledCause is the cause of a duplicate of op made while the first
// attempt was held by a stalled database, from what the bursts of op
// showed: a claim in two steps when one of them made more than one effect
// in a race within one place (not spread over instances or sessions that
// keep keys apart, nor where that is not ruled out), else a claim that
// did not last.
func stalledCause(r *record.Record, op string) string {
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Operation != op || in.Role != record.RoleBurst || repeated(r.EffectsOf(in)) < 2 {
			continue
		}
		// Copies released together are at once whatever their recorded
		// times say: no other account is a race.
		if c := duplicateCause(r, in); c == "" || strings.HasPrefix(c, causeAtomic) {
			return stalledRaced
		}
	}
	return stalledLease
}

// depDiagnosis says what a duplicate of in after a dependency fault
// shows: a downstream call repeated without the key, when its other
// effects were made once (the database kept the key); a message repeated
// over SMTP; attempts served by instances or sessions that keep keys
// apart; else what the fault points at.
func depDiagnosis(r *record.Record, in *record.Intent, fault string, effs []fakes.Effect) string {
	if c := downstreamCause(effs); c != "" {
		return c
	}
	if c := rewrittenWithin(r, in, fault); c != "" {
		return c
	}
	if c := smtpCause(effs); c != "" {
		return c
	}
	if c := apartCause(r, in); c != "" {
		return c
	}
	if ignoredAlone(r, in.Operation) {
		// A retry one at a time, with no fault, acted again too: the
		// fault is not what made this one act again.
		return causeIgnored
	}
	if r.Target.Caps().Redelivery {
		switch fault {
		case faults.NameDepStall:
			return consumerStalled
		case faults.NameDepResetAfterCommit:
			return consumerNotCommitted
		}
	}
	switch fault {
	case faults.NameDepStall:
		if c := stalledApart(r, in); c != "" {
			return c
		}
		return stalledCause(r, in.Operation)
	case faults.NameDepResetAfterCommit:
		return keyNotCommitted
	}
	if c := madeByLaterAttempts(in, effs); c != "" {
		return c
	}
	return "the failed attempt's effect was not seen by the retry under the same key"
}

// madeByLaterAttempts says, when no attempt under a fault made any of
// effs, which attempts did: retries after the database had recovered,
// that the key did not hold across. It names the instances or sessions
// that served them when they were more than one; nothing in the record
// then tells a store kept by each from a key not kept at all. "" when a
// faulted attempt made one of them.
func madeByLaterAttempts(in *record.Intent, effs []fakes.Effect) string {
	var makers []*record.Attempt
	for i := range in.Attempts {
		a := &in.Attempts[i]
		made := false
		for _, e := range effs {
			if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
				made = true
			}
		}
		if !made {
			continue
		}
		if a.Fault != "" {
			return ""
		}
		makers = append(makers, a)
	}
	if len(makers) < 2 {
		return ""
	}
	ns := make([]string, len(makers))
	for i, a := range makers {
		ns[i] = fmt.Sprint(a.N)
	}
	c := fmt.Sprintf("the failed attempt made no effect: attempts %s, retries after it, each made one, so the key did not hold across the retries", strings.Join(ns, " and "))
	for _, by := range []struct {
		name func(*record.Attempt) string
		what string
	}{{instanceOf, "instances"}, {sessionOf, "sessions"}} {
		if names := distinct(makers, by.name); len(names) > 1 {
			c += fmt.Sprintf(" (they were served by different %s, %s: a store kept by each would do that, and nothing in this run told it from a key not kept at all)", by.what, strings.Join(names, ", "))
			break
		}
	}
	return c
}

// rewrittenWithin says, when the attempt whose database connection was
// reset after its commit (dep-reset-after-commit) made the same kind of
// effect twice within its own time, that the target wrote again itself,
// once the connection failed: by a retry of its own, or its database
// client's (go-redis, for one, sends a command again on a new connection
// when its connection fails). "" when no attempt did.
func rewrittenWithin(r *record.Record, in *record.Intent, fault string) string {
	if fault != faults.NameDepResetAfterCommit {
		return ""
	}
	consumer := r.Target.Caps().Redelivery
	effs := r.EffectsOf(in)
	for _, a := range in.Attempts {
		if a.Fault != fault || a.Burst {
			continue
		}
		if consumer && deliveries(a.Broker) != 1 {
			// A consumer's attempt lasts until its event is
			// acknowledged: a redelivery after a nack falls within it
			// too. Delivered once, it wrote again itself.
			continue
		}
		if _, ok := twiceWithin(a, effs); !ok {
			continue
		}
		who, what := "the target", "the key"
		if consumer {
			who, what = "the consumer, given the event once,", "the event id"
		}
		return fmt.Sprintf("two of them were made within one attempt (attempt %d), the second after the database connection was reset once the first write had committed: %s wrote again itself, by a retry of its own or through its database client (go-redis sends a command again on a new connection when its connection fails, unless told not to with MaxRetries: -1); a write whose answer was lost may have been made, and writing again is safe only when the write claims %s in the same statement, transaction or script, so that a second one finds it", a.N, who, what)
	}
	return ""
}

// deliveries counts the deliveries of the event in an attempt's broker
// trace ("published, delivered #1 to c1, acked #1 to c1").
func deliveries(trace string) int {
	n := 0
	for _, step := range strings.Split(trace, ", ") {
		if strings.HasPrefix(step, "delivered") {
			n++
		}
	}
	return n
}

// stalledApart names the instances (sessions) that served the attempts at
// in, when they were more than one and a retry one at a time, served by
// another, acted again too (keptApart): each keeps its own keys. The
// first attempt's statements, held by the stalled database, land during
// or after the retry's, so which attempt made which effect cannot tell
// it (duplicateCause reads that); who served them can. "" otherwise.
func stalledApart(r *record.Record, in *record.Intent) string {
	as := make([]*record.Attempt, 0, len(in.Attempts))
	for i := range in.Attempts {
		if !in.Attempts[i].DryRun {
			as = append(as, &in.Attempts[i])
		}
	}
	const held = " (the first attempt's statements, held by the stalled database, landed after the retry had begun)"
	if names := distinct(as, instanceOf); len(names) > 1 && keptApart(r, in.Operation, instanceOf) {
		return fmt.Sprintf("the attempts were served by different instances (%s), and each keeps its own keys: "+causePerInstance+"; keep the keys in a store every instance shares"+held, strings.Join(names, ", "))
	}
	if names := distinct(as, sessionOf); len(names) > 1 && keptApart(r, in.Operation, sessionOf) {
		if r.Target.Caps().SessionProcess {
			return fmt.Sprintf(causePerSession+" (%s), each a server process of its own, and the keys are kept in the process's memory: keep them in durable storage that every process of the server reads (a file, a database)"+held, strings.Join(names, ", "))
		}
		return fmt.Sprintf(causePerSession+" (%s), and the keys are kept per session; keep them for the whole server, whatever the session"+held, strings.Join(names, ", "))
	}
	return ""
}
