package engine

import (
	"errors"
	"fmt"
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

// observedOnly reports whether the target's effects are counted only by
// observers, with no fake to fail or to signal a crash point.
func (r *runner) observedOnly() bool {
	return len(r.inst.Observers) > 0 && len(r.inst.Fakes) == 0
}
