package engine

import (
	"errors"
	"fmt"

	"github.com/idemcheck/idemcheck/faults"
)

// observe asks every observer for the effects of marker and reports
// whether there was any to ask. A source that cannot be read stops the
// run: without it, no effect of the target can be counted.
func (r *runner) observe(marker string) bool {
	if b, ok := r.target().(Budgeted); ok && r.fatal == nil {
		if err := b.Exhausted(); err != nil {
			r.fatal = err // a run cut short cannot be judged
		}
	}
	if len(r.inst.Observers) == 0 || r.fatal != nil {
		return false
	}
	var errs []error
	for _, o := range r.inst.Observers {
		if err := o.Observe(r.s.ctx, r.ledger, marker); err != nil && r.s.ctx.Err() == nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		r.fatal = fmt.Errorf("counting effects: %w", errors.Join(errs...))
	}
	return true
}

// needsFake reports whether f can only act through a fake: downstream
// faults, the client disconnect (timed by the fake seeing the target's
// downstream call), and the crash points that a fake's events trigger. A target
// whose effects only observers count has no fake for them.
func needsFake(f faults.Fault) bool {
	switch x := f.(type) {
	case faults.DownstreamFault, faults.DisconnectFault:
		return true
	case faults.CrashFault:
		return x.CrashPoint() != faults.AfterReply
	}
	return false
}

// observedOnly reports whether the target's effects are counted only by
// observers, with no fake to fail or to signal a crash point.
func (r *runner) observedOnly() bool {
	return len(r.inst.Observers) > 0 && len(r.inst.Fakes) == 0
}
