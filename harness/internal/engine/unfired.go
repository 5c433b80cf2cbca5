package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// noteUnfired lists in rec.Unexamined, once per check, operation and
// fault, the faults armed for an attempt that never acted
// (record.Attempt.NotFired): the part of the check that judges them
// under that fault, at that operation, was not examined. It runs once the
// record is whole, never beside the attempts. why says, by intent and
// attempt, why an armer knows its fault may not have acted, or "" (the
// reason is then checks.UnfiredReason).
//
// A fault that could not act because the target never calls the fakes
// it acts in (unused says so, by fault name, or "") is listed as
// unsupported instead: the check was not lacking an examination the
// target could have had, as when no fake is declared at all.
func noteUnfired(rec *record.Record, why func(intent, attempt int) string, unused func(fault string) string) {
	seen := map[[3]string]bool{}
	for _, u := range rec.Unfired() {
		name := u.Fault
		check := checks.FaultOwner(faults.Class(u.FaultClass))
		if u.Point != nil {
			u.Fault += " at " + u.Point.String()
		}
		k := [3]string{check, u.Operation, u.Fault}
		if seen[k] {
			continue
		}
		seen[k] = true
		cause, reason := record.CauseUnsupported, unused(name)
		if reason == "" {
			cause, reason = record.CauseUnfired, why(u.Intent, u.Attempt)
		}
		if reason == "" {
			reason = checks.UnfiredReason
		}
		rec.Unexamined = append(rec.Unexamined, record.Unexamined{Check: check, Operation: u.Operation, Fault: u.Fault,
			Cause: cause, Reason: reason})
	}
}

// The reasons a fault armed in a dependency's proxy did not act, by how
// the proxy attributes statements to intents (config attribute).
const (
	unfiredByMarker = "the proxy never saw this intent's marker in a statement: store the marker with the rows, or set attribute: in-flight on the dependency"
	// unfiredInFlight: attempts that overlap have no intent in flight.
	unfiredInFlight = "the target sent the dependency no statement while the attempt ran alone"
)

// unfiredFailedFirst is why a dependency fault did not act on an intent
// whose every attempt failed with nothing made, while the run's other
// dependency faults did see their intents' markers: the target never
// reached the database with it.
const unfiredFailedFirst = "every attempt at this intent failed before the target wrote anything of it to the database (%s), so the fault had no statement to act on; other dependency faults did see the statements of this operation's intents, so the marker is stored"

// markerSeenElsewhere returns why (unfiredByMarker) unless the record
// says otherwise: when a dependency fault armed by marker acted on
// another intent of the same operation (so the proxy does see its
// markers in statements) and every attempt at intent id
// failed with no effect of it recorded (effects, the ledger's), the
// target did not reach the database with this intent at all, which
// unfiredFailedFirst says with the attempts' answers.
func markerSeenElsewhere(rec *record.Record, effects []fakes.Effect, id int, why string) string {
	in := rec.Intent(id)
	if in == nil || in.Acknowledged() {
		return why
	}
	for _, e := range effects {
		if e.HasMarker(in.Marker) {
			return why
		}
	}
	seen := false
	for i := range rec.Intents {
		other := &rec.Intents[i]
		if other.ID == id || other.Operation != in.Operation {
			continue
		}
		for _, a := range other.Attempts {
			// A refusal restarts the database whatever the statements
			// carry: it shows nothing of the marker.
			if a.Fault != "" && a.Fault != faults.NameDepRefuse && faults.Class(a.FaultClass) == faults.ClassDependency && !a.NotFired {
				seen = true
			}
		}
	}
	if !seen {
		return why
	}
	// The attempts' answers, a run of the same one counted: "503 ×5".
	var answers []string
	last, run := "", 0
	flush := func() {
		if run == 1 {
			answers = append(answers, last)
		} else if run > 1 {
			answers = append(answers, fmt.Sprintf("%s ×%d", last, run))
		}
	}
	for _, a := range in.Attempts {
		ans := string(a.Outcome)
		if a.Status > 0 {
			ans = fmt.Sprint(a.Status)
		}
		if ans != last {
			flush()
			last, run = ans, 0
		}
		run++
	}
	flush()
	return fmt.Sprintf(unfiredFailedFirst, strings.Join(answers, ", "))
}

// The reasons a fault armed for an attempt did not act when the target
// acted on the intent only after the attempt was over: it had answered
// (unfiredLate), or the attempt had given up waiting (unfiredTimedOut).
const (
	unfiredLate     = "the target answered before it acted: the intent's effect was recorded only after its attempt was over, when the fault armed for the attempt was no longer armed (the target acts in the background, after its answer)"
	unfiredTimedOut = "the target acted only after its attempt had timed out: the intent's effect was recorded once the attempt had stopped waiting for it, when the fault armed for the attempt was no longer armed (give the target a longer timeout if it is that slow)"
)

// lateWhy returns why, by intent and attempt, a fault armed for an
// attempt that never acted may have missed what it was armed for: the
// intent's first effect after the attempt began (of effects, the whole
// ledger) came after the attempt ended — recorded after the ledger was
// read at its end, or by one of fks (the run's fakes, by name) after its
// end — and before the intent's next attempt began, if it had one. The
// reason is unfiredLate when the attempt had an answer, unfiredTimedOut
// when it timed out; "" otherwise (the attempt failed in another way,
// which may be why the target acted late).
func lateWhy(rec *record.Record, effects []fakes.Effect, fks map[string]fakes.Fake) func(id, n int) string {
	return func(id, n int) string {
		in := rec.Intent(id)
		if in == nil || n < 1 || n > len(in.Attempts) {
			return ""
		}
		a := in.Attempts[n-1]
		for _, e := range effects {
			if e.Seq <= a.LedgerBefore || !e.HasMarker(in.Marker) {
				continue
			}
			_, byFake := fks[e.Fake]
			after := e.Seq > a.LedgerAfter || (byFake && e.At.After(a.End))
			if !after || (n < len(in.Attempts) && e.Seq > in.Attempts[n].LedgerBefore) {
				return "" // within the attempt, or the next one's
			}
			switch {
			case a.TimedOut:
				return unfiredTimedOut
			case a.Outcome == record.OK || a.Status > 0:
				return unfiredLate
			}
			return ""
		}
		return ""
	}
}

// fakesUnused returns, for a fault's name, why it could not act when it
// acts on the target's calls to the fakes (needs) and no fake of fks
// recorded an effect in the whole run (effects, the ledger's): the target
// does not call them. "" otherwise.
func fakesUnused(effects []fakes.Effect, fks map[string]fakes.Fake, needs func(fault string) bool) func(fault string) string {
	if len(fks) == 0 {
		return func(string) string { return "" }
	}
	for _, e := range effects {
		if _, ok := fks[e.Fake]; ok {
			return func(string) string { return "" }
		}
	}
	names := make([]string, 0, len(fks))
	for n := range fks {
		names = append(names, n)
	}
	sort.Strings(names)
	why := fmt.Sprintf("the target made no call to the %s fake%s in the whole run, so this fault, which acts on those calls, had nothing to act on (leave out a fake the target does not call, or point the target at it: {{fakes.%s.url}})",
		strings.Join(names, ", "), map[bool]string{true: "s", false: ""}[len(names) > 1], names[0])
	return func(fault string) string {
		if needs(fault) {
			return why
		}
		return ""
	}
}
