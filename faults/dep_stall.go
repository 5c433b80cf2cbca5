package faults

import (
	"time"

	"github.com/idemcheck/idemcheck/deps"
)

// NameDepStall is the registered name of DepStall.
const NameDepStall = "dep-stall"

// DepStall holds each of the intent's statements for Delay before its
// database sees it, and the client gives up as soon as the first is held,
// then retries with the same key while the first attempt's statements
// still wait. Set Delay longer than the key lifetime the target declares
// (how long a key stays "in progress"): a correct target keeps the retry
// waiting or answers "in progress" until the first attempt ends, then
// replays it; one whose key expires first runs the intent twice. The
// retries wait out "in progress" answers for Delay on top of the stuck
// wait (retry.stuck_wait), as the first attempt cannot end before the
// stall lets it go.
type DepStall struct {
	dep
	// Delay is how long each statement is held. Default 1s; on a queue
	// consumer, at least twice the broker's ack deadline, so that its
	// redelivery comes while the first delivery is held.
	Delay Duration `json:"delay"`
}

// Name implements Fault.
func (*DepStall) Name() string { return NameDepStall }

// Validate refuses a delay that is not above zero.
func (f *DepStall) Validate() error {
	if f.Delay <= 0 {
		return invalid("delay", "must be above zero, got %s", time.Duration(f.Delay))
	}
	return nil
}

// DepRule implements DependencyFault: every statement of the intent is
// held until the attempt is over.
func (f *DepStall) DepRule(intent string) deps.Rule {
	return deps.Rule{Intent: intent, Action: deps.Stall, Delay: f.Holds(), Times: -1}
}

// HoldingAtLeast implements Stretcher.
func (f *DepStall) HoldingAtLeast(d time.Duration) Fault {
	if time.Duration(f.Delay) >= d {
		return f
	}
	c := *f
	c.Delay = Duration(d)
	return &c
}

// Holds implements Holder: the first attempt's statement waits out the
// delay after the client has left.
func (f *DepStall) Holds() time.Duration { return max(time.Duration(f.Delay), time.Millisecond) }

// LeavesWhenFired implements Leaver.
func (*DepStall) LeavesWhenFired() bool { return true }
