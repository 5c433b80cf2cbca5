package checks

import (
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// owner returns the check that judges the intent's retries: the check
// that owns the class of its most disruptive fault (see Invariant.Faults),
// and retry.sequential when no attempt was faulted.
//
// An intent the target restarted under, between two of its attempts,
// without a crash fault of its own (a generated trial's restart), is
// judged as after a crash: crash.recovery owns it, whatever fault met
// its later attempts.
func owner(in *record.Intent) string {
	owner, weight := CheckRetrySequential, 0
	for _, a := range in.Attempts {
		if a.FaultClass == "" {
			continue
		}
		if w := classWeight(faults.Class(a.FaultClass)); w > weight {
			owner, weight = faultOwner(faults.Class(a.FaultClass)), w
		}
	}
	if weight < classWeight(faults.ClassCrash) && restartedBetween(in) {
		return CheckCrashRecovery
	}
	return owner
}

// RestartCause is the fault a finding names when the target was
// restarted between an intent's attempts by the run itself (a generated
// trial's restart step), not by a crash fault.
const RestartCause = "restart"

// restartedBetween reports whether two of in's attempts were served by
// different incarnations of the target, with no crash fault among its
// attempts: the target was restarted between them, from outside.
func restartedBetween(in *record.Intent) bool {
	first := 0
	for _, a := range in.Attempts {
		if a.FaultClass == string(faults.ClassCrash) || a.Crashed {
			return false
		}
		switch {
		case a.Incarnation == 0:
		case first == 0:
			first = a.Incarnation
		case a.Incarnation != first:
			return true
		}
	}
	return false
}

// causeFault names what disturbed in, for its finding: RestartCause when
// the target was restarted between its attempts from outside, otherwise
// the fault of its first faulted attempt (firstFaulted).
func causeFault(in *record.Intent) string {
	if restartedBetween(in) {
		return RestartCause
	}
	return firstFault(in)
}

// classWeight orders fault classes by how much they disturb an intent: a
// crash outweighs an ambiguous downstream failure, which outweighs any
// other fault. When an intent met several, the heaviest decides who judges
// it.
func classWeight(c faults.Class) int {
	switch c {
	case faults.ClassCrash:
		return 3
	case faults.ClassDownstreamAmbiguous:
		return 2
	}
	return 1
}
