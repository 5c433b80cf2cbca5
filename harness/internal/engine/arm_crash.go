package engine

import (
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
)

// crashArm arms a fault that kills the target at a point (faults.CrashFault),
// at the event that marks it: a fake seeing the downstream call, the
// ledger recording the effect, the proxy having the target's reply.
type crashArm struct{ f faults.CrashFault }

func crashArmer(f faults.Fault) armer {
	if c, ok := f.(faults.CrashFault); ok {
		return crashArm{c}
	}
	return nil
}

// needsFake: all but the crash after the reply are events of a fake.
func (c crashArm) needsFake() bool { return c.f.CrashPoint() != faults.AfterReply }

func (c crashArm) arm(a *armed) func() {
	switch c.f.CrashPoint() {
	case faults.BeforeEffect:
		return a.armRule(fakes.Rule{Marker: a.call.Marker, Times: 1, Action: fakes.FailBefore, OnMatch: a.kill})
	case faults.AfterEffect:
		a.fired = a.crashed.Load
		at := a.onPoint()
		return a.ledger.Observe(func(e fakes.Effect) {
			if at(e) {
				a.kill()
				// Killed before the fake's reply: the target never read
				// it. Said here, whatever the race between the reply
				// and the process's end lets the fake see.
				a.ledger.MarkUnanswered(e.Seq)
			}
		})
	case faults.AfterReply:
		a.fired = a.crashed.Load
		a.call.Fault = faults.KillAfterReply(c.f.Name(), a.kill)
	}
	return func() {}
}
