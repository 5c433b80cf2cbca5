package checks

import (
	"github.com/idemcheck/idemcheck/fakes"
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
// its later attempts, unless its effect was already repeated before the
// restart (the fault before it made the duplicate; its owner judges).
func owner(r *record.Record, in *record.Intent) string {
	owner, weight := CheckRetrySequential, 0
	for _, a := range in.Attempts {
		if a.FaultClass == "" {
			continue
		}
		if w := classWeight(faults.Class(a.FaultClass)); w > weight {
			owner, weight = faultOwner(faults.Class(a.FaultClass)), w
		}
	}
	if weight < classWeight(faults.ClassCrash) && restartedBetween(in) && !repeatedBeforeRestart(r, in) {
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
func restartedBetween(in *record.Intent) bool { return restartAt(in) > 0 }

// restartAt returns the index of in's first attempt served by another
// incarnation of the target than the attempts before it, when no crash
// fault is among its attempts; -1 otherwise.
func restartAt(in *record.Intent) int {
	first := 0
	at := -1
	for i, a := range in.Attempts {
		if a.FaultClass == string(faults.ClassCrash) || a.Crashed {
			return -1
		}
		switch {
		case a.Incarnation == 0:
		case first == 0:
			first = a.Incarnation
		case a.Incarnation != first && at < 0:
			at = i
		}
	}
	return at
}

// repeatedBeforeRestart reports whether in's effect was already repeated
// before the attempt that met the restarted target began: the restart
// did not make that duplicate.
func repeatedBeforeRestart(r *record.Record, in *record.Intent) bool {
	at := restartAt(in)
	if at < 0 {
		return false
	}
	before := in.Attempts[at].LedgerBefore
	var early []fakes.Effect
	for _, e := range r.EffectsOf(in) {
		if e.Seq != 0 && e.Seq <= before {
			early = append(early, e)
		}
	}
	return repeated(early) > 1
}

// faultBeforeRestart reports whether in's first faulted attempt came
// before the restart between its attempts.
func faultBeforeRestart(in *record.Intent) bool {
	f, at := firstFaulted(in), restartAt(in)
	if f == nil || at < 0 {
		return false
	}
	for i := range in.Attempts[:at] {
		if &in.Attempts[i] == f {
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
