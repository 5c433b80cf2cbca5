package engine

import "github.com/idemcheck/idemcheck/faults"

// downstreamArm arms a fault the fakes inject into the target's own
// downstream call (faults.DownstreamFault): its rule, for the call's
// marker.
type downstreamArm struct{ f faults.DownstreamFault }

func downstreamArmer(f faults.Fault) armer {
	if d, ok := f.(faults.DownstreamFault); ok {
		return downstreamArm{d}
	}
	return nil
}

// needsFake: the rule is a fake's.
func (downstreamArm) needsFake() bool { return true }

func (d downstreamArm) arm(a *armed) func() { return a.armRule(d.f.Rule(a.call.Marker)) }
