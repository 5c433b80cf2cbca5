package scenarios

import (
	"fmt"
	"slices"
	"time"
)

// MaxSteps bounds the steps of a saved trial: generated trials are a few
// steps long, and a hand-edited file must not make a run unbounded.
const MaxSteps = 64

// MaxFill and MaxWait bound a saved trial's fill and wait steps.
const (
	MaxFill = 1000
	MaxWait = time.Minute
)

// Limits are what a configuration allows a trial to do.
type Limits struct {
	// Burst is the largest burst (the configuration's retry.burst).
	Burst int
	// Faults are the names of the faults the configuration enables.
	Faults []string
}

// Within checks a saved trial against what the configuration allows: no
// more than MaxSteps steps, no burst larger than l.Burst, no fault the
// configuration does not name. A trial file is input from outside: a
// burst of 5,000 copies, or a fault nobody enabled, is refused before the
// run, not obeyed or silently skipped.
func (t Trial) Within(l Limits) error {
	if len(t.Steps) > MaxSteps {
		return fmt.Errorf("trial: %d steps, more than the %d a trial may have", len(t.Steps), MaxSteps)
	}
	for i, s := range t.Steps {
		if s.Burst > l.Burst {
			return fmt.Errorf("trial step %d: a burst of %d copies, more than the configuration's burst (%d)", i+1, s.Burst, l.Burst)
		}
		if s.Burst < 0 {
			return fmt.Errorf("trial step %d: a burst of %d copies", i+1, s.Burst)
		}
		if s.Fill > MaxFill {
			return fmt.Errorf("trial step %d: %d fresh keys, more than the %d a step may send", i+1, s.Fill, MaxFill)
		}
		if s.Wait > MaxWait {
			return fmt.Errorf("trial step %d: a wait of %s, longer than the %s a step may wait", i+1, s.Wait, MaxWait)
		}
		if s.Fault != "" && !slices.Contains(l.Faults, s.Fault) {
			return fmt.Errorf("trial step %d: fault %q is not one the configuration enables (%v)", i+1, s.Fault, l.Faults)
		}
	}
	return nil
}
