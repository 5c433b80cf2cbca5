package checks

import (
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// owner returns the check that judges the intent's retries: the check
// that owns the class of its most disruptive fault (see Invariant.Faults),
// and retry.sequential when no attempt was faulted.
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
	return owner
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
