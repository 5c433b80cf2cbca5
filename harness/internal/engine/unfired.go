package engine

import (
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
func noteUnfired(rec *record.Record, why func(intent, attempt int) string) {
	seen := map[[3]string]bool{}
	for _, u := range rec.Unfired() {
		check := checks.FaultOwner(faults.Class(u.FaultClass))
		if u.Point != nil {
			u.Fault += " at " + u.Point.String()
		}
		k := [3]string{check, u.Operation, u.Fault}
		if seen[k] {
			continue
		}
		seen[k] = true
		reason := why(u.Intent, u.Attempt)
		if reason == "" {
			reason = checks.UnfiredReason
		}
		rec.Unexamined = append(rec.Unexamined, record.Unexamined{Check: check, Operation: u.Operation, Fault: u.Fault,
			Cause: record.CauseUnfired, Reason: reason})
	}
}

// The reasons a fault armed in a dependency's proxy did not act, by how
// the proxy attributes statements to intents (config attribute).
const (
	unfiredByMarker = "the proxy never saw this intent's marker in a statement: store the marker with the rows, or set attribute: in-flight on the dependency"
	// unfiredInFlight: attempts that overlap have no intent in flight.
	unfiredInFlight = "the target sent the dependency no statement while the attempt ran alone"
)

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
