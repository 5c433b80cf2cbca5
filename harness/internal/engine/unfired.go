package engine

import (
	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// noteUnfired lists in rec.Unexamined, once per check, operation and
// fault, the faults armed for an attempt that never acted
// (record.Attempt.NotFired): the part of the check that judges them
// under that fault, at that operation, was not examined. It runs once the
// record is whole, never beside the attempts.
func noteUnfired(rec *record.Record) {
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
		rec.Unexamined = append(rec.Unexamined, record.Unexamined{Check: check, Operation: u.Operation, Fault: u.Fault,
			Cause: record.CauseUnfired, Reason: checks.UnfiredReason})
	}
}
