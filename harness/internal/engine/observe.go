package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// The optional parts of an Observer the engine uses when an observer has
// them (package observe's do).
type (
	// serialObserver attributes effects by delta: the change it sees
	// after an attempt is the intent in flight's, which holds only when
	// the target's intents run one at a time. Begin takes the baseline
	// of an intent before its first attempt.
	serialObserver interface {
		Serial() bool
		Begin(ctx context.Context, marker string) error
	}
	// mergingObserver counts once an effect that several observers of
	// the same objects saw.
	mergingObserver interface {
		MergeEffects(effects []fakes.Effect) []fakes.Effect
	}
	// identityChecker says when observers of the same objects name
	// what they saw of an intent differently: merged, they would still
	// count each effect once per observer.
	identityChecker interface {
		CheckIdentities(effects []fakes.Effect, marker string) error
	}
	// summarizer says in one line what an observer saw.
	summarizer interface {
		Summary() string
	}
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
	if len(errs) == 0 && len(r.inst.Observers) > 1 {
		if c, ok := r.inst.Observers[0].(identityChecker); ok { // one check serves every observer
			if err := c.CheckIdentities(r.ledger.ByMarker(marker), marker); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		r.fatal = fmt.Errorf("counting effects: %w", errors.Join(errs...))
	}
	return true
}

// begin takes, before the first attempt of marker's intent, the baseline
// of every observer that attributes by delta.
func (r *runner) begin(marker string) {
	if r.fatal != nil {
		return
	}
	var errs []error
	for _, o := range r.inst.Observers {
		if so, ok := o.(serialObserver); ok && so.Serial() {
			if err := so.Begin(r.s.ctx, marker); err != nil && r.s.ctx.Err() == nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		r.fatal = fmt.Errorf("counting effects: %w", errors.Join(errs...))
	}
}

// beginFirst calls begin when in has had no attempt yet.
func (r *runner) beginFirst(in *record.Intent) {
	if len(in.Attempts) == 0 && r.serial() {
		r.begin(in.Marker)
	}
}

// serial reports whether an observer of the instance attributes by delta:
// the target's intents then run one at a time.
func (r *runner) serial() bool { return serialInstance(r.inst) }

func serialInstance(inst *Instance) bool {
	if inst == nil {
		return false
	}
	for _, o := range inst.Observers {
		if so, ok := o.(serialObserver); ok && so.Serial() {
			return true
		}
	}
	return false
}

// serialNames names the observers that attribute by delta, for the
// reasons the run gives.
func serialNames(inst *Instance) string {
	var names []string
	for _, o := range inst.Observers {
		if so, ok := o.(serialObserver); ok && so.Serial() {
			if n, ok := o.(interface{ Name() string }); ok {
				names = append(names, n.Name())
			}
		}
	}
	return strings.Join(names, ", ")
}

// notSerial is what the run leaves out so that the intents of a target
// observed by delta run one at a time, each with why.
func notSerial(inst *Instance) map[string]string {
	why := fmt.Sprintf("effects are attributed by delta (observer %s): the change seen after an attempt is given to the intent in flight, so intents run one at a time", serialNames(inst))
	return map[string]string{
		"concurrent distinct intents": why,
		"reordered delivery":          why,
		"overlapping trial steps":     why,
		"trials beside the probes":    why,
		"trial workers":               why + "; one trial at a time",
	}
}

// merged returns effects with those that several observers of the same
// objects saw counted once.
func merged(inst *Instance, effects []fakes.Effect) []fakes.Effect {
	if inst == nil {
		return effects
	}
	for _, o := range inst.Observers {
		if m, ok := o.(mergingObserver); ok {
			return m.MergeEffects(effects) // one merge serves every observer
		}
	}
	return effects
}

// observerSummaries says what each observer of the instance saw.
func observerSummaries(inst *Instance) []string {
	if inst == nil {
		return nil
	}
	var out []string
	for _, o := range inst.Observers {
		if s, ok := o.(summarizer); ok {
			out = append(out, s.Summary())
		}
	}
	return out
}

// observedOnly reports whether the target's effects are counted only by
// observers, with no fake to fail or to signal a crash point.
func (r *runner) observedOnly() bool {
	return len(r.inst.Observers) > 0 && len(r.inst.Fakes) == 0
}

// noteObservers writes into rec what the observers saw and how they
// attributed it.
func (r *runner) noteObservers(rec *record.Record) {
	rec.Observers = observerSummaries(r.inst)
	if r.serial() {
		rec.Attribution = record.AttributionDelta
		rec.NotRun = notSerial(r.inst)
	}
}
