package engine

import (
	"context"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
)

// disconnectWait bounds how long a fake holds the downstream call of a
// client-disconnect attempt for the proxy to cancel its request to the
// target; disconnectGrace how long it then waits for the target to cancel
// its downstream call in turn.
const (
	disconnectWait  = 2 * time.Second
	disconnectGrace = 250 * time.Millisecond
)

// disconnectLand is how long, at the least, once the fake has let the
// held call go on, the intent's effects are left to land before they are
// counted for the last time: the target that went on with its work after
// its client left makes the call, then writes what follows it (its own
// records); with as long again as the longest of its calls took
// (armed.usual), up to disconnectLandMax, for a target whose work after
// the call is slow. In the generated trials it is the target's pace
// (armed.pace) when that is shorter, as the grace is: a trial's finding
// counts only once its replay shows it again.
const (
	disconnectLand    = 100 * time.Millisecond
	disconnectLandMax = 10 * time.Second
)

// disconnectArm arms a fault whose client leaves while the target works
// (faults.DisconnectFault): the client leaves when the target's downstream
// call reaches a fake.
type disconnectArm struct{ f faults.DisconnectFault }

func disconnectArmer(f faults.Fault) armer {
	if d, ok := f.(faults.DisconnectFault); ok {
		return disconnectArm{d}
	}
	return nil
}

// needsFake: the fake times the client's leaving.
func (disconnectArm) needsFake() bool { return true }

// arm makes the call with a context of its own, cancelled when a fake
// sees the target's downstream call for the marker; the fake goes on once
// the proxy's request to the target has been cancelled (bounded), so the
// target has seen it.
func (d disconnectArm) arm(a *armed) func() {
	actx, leave := context.WithCancel(a.run)
	a.ctx = actx
	gone := make(chan struct{})
	a.call.Fault = faults.NotifyForwarded(d.f, gone)
	// Then it waits (bounded) for the target to give up its own call,
	// as a target that passes its request's context downstream does:
	// the effect is recorded after that, whichever way the target
	// goes, so the same target shows the same outcome every try.
	grace := disconnectGrace
	if a.pace > 0 {
		grace = min(grace, a.pace)
	}
	// released is closed when the fake lets the held call go on (the
	// target gave its call up, or grace passed): the effect lands then.
	released := make(chan struct{})
	var releasedAt time.Time
	var releaseOnce sync.Once
	onRelease := func() {
		releaseOnce.Do(func() {
			releasedAt = time.Now()
			close(released)
		})
	}
	disarm := a.armRule(fakes.Rule{Marker: a.call.Marker, Times: 1, Action: fakes.AwaitCaller, Delay: grace, OnRelease: onRelease, OnMatch: func() {
		// The client left, but the target had the request: its work may
		// still land after this attempt, in a later one's window.
		a.forwarded.Store(true)
		leave()
		select {
		case <-gone:
		case <-time.After(disconnectWait):
		case <-a.run.Done():
		}
		// The fake goes on with the call within grace; the target's work
		// after it lands after this attempt, maybe after every retry:
		// the intent's effects are counted once it has had the time to.
		if a.settleLater != nil {
			// The fake goes on by then at the latest; it says when it
			// did, if it did before.
			latest := time.Now().Add(grace)
			a.settleLater(func(ctx context.Context) {
				land := disconnectLand
				if a.pace > 0 {
					// In the trials, the target's pace, as the grace.
					land = min(land, a.pace)
				}
				if a.usual != nil {
					land = min(land+a.usual(), disconnectLandMax)
				}
				from := latest
				hold := time.NewTimer(time.Until(latest))
				defer hold.Stop()
				select {
				case <-released:
					if releasedAt.Before(from) {
						from = releasedAt
					}
				case <-hold.C:
				case <-ctx.Done():
					return
				}
				t := time.NewTimer(time.Until(from.Add(land)))
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
				}
			})
		}
	}})
	return func() {
		disarm()
		leave()
	}
}
