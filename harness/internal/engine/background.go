package engine

import (
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// A target may answer first and act in the background (202, then a job;
// a consumer that acknowledges, then writes): its intents' effects come
// after its answer. Before the run's effects are read for the last time,
// a run with an acknowledged intent still without its effect waits for
// the fakes to fall quiet, and asks its observers again for that
// intent's effects, so that an effect on its way, or one its observer
// read too early to see, is counted, not called lost.
const (
	// backgroundQuiet is how long the fakes must record nothing new.
	backgroundQuiet = 500 * time.Millisecond
	// backgroundBound bounds the whole wait.
	backgroundBound = 5 * time.Second
)

// settleBackground waits, while an acknowledged mutating intent of the
// run has no effect (missingEffect), until the ledger has recorded
// nothing for backgroundQuiet, at most backgroundBound, or the run ends.
// A target whose every acknowledged intent has its effect waits not at
// all. An effect that came while it waited marks the session's target as
// one that acts in the background (Session.background), whose trials
// wait too.
func (r *runner) settleBackground() {
	if !missingEffect(r.rec.Intents, r.ledger.Effects()) {
		return
	}
	defer func(before int64) {
		if r.ledger.LastSeq() > before && r.s.background != nil {
			r.s.background.Store(true)
		}
	}(r.ledger.LastSeq())
	r.probing("waiting for effects made in the background")
	until := time.Now().Add(backgroundBound)
	if r.observeMissing(until) && !missingEffect(r.rec.Intents, r.ledger.Effects()) {
		return
	}
	fresh := make(chan struct{}, 1)
	cancel := r.ledger.Observe(func(fakes.Effect) {
		select {
		case fresh <- struct{}{}:
		default:
		}
	})
	defer cancel()
	bound := time.NewTimer(time.Until(until))
	defer bound.Stop()
	quiet := time.NewTimer(backgroundQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-r.s.ctx.Done():
			return
		case <-bound.C:
			return
		case <-quiet.C:
			if before := r.ledger.LastSeq(); r.observeMissing(until) && r.ledger.LastSeq() > before {
				if !missingEffect(r.rec.Intents, r.ledger.Effects()) {
					return
				}
				quiet.Reset(backgroundQuiet)
				continue
			}
			return
		case <-fresh:
			if !missingEffect(r.rec.Intents, r.ledger.Effects()) {
				return
			}
			quiet.Reset(backgroundQuiet)
		}
	}
}

// observeMissing asks the observers again for the effects of every
// intent that missingEffect would name, and says whether it asked. An
// observer read once right after an intent's answer finds nothing of an
// effect made after it (a consumer that acknowledges, then writes); read
// again now, it does. Observers that attribute by delta are not asked:
// the change they would see now is no intent's alone. It asks for no
// more intents once until has passed.
func (r *runner) observeMissing(until time.Time) bool {
	if len(r.inst.Observers) == 0 || r.serial() || r.fatal != nil {
		return false
	}
	seen := seenMarkers(r.ledger.Effects())
	asked := false
	for i := range r.rec.Intents {
		in := &r.rec.Intents[i]
		if mayMiss(in) && !seen[in.Marker] && time.Now().Before(until) && r.s.ctx.Err() == nil {
			r.observe(in.Marker)
			asked = true
		}
	}
	return asked
}

// seenMarkers are the markers effects carry.
func seenMarkers(effects []fakes.Effect) map[string]bool {
	seen := map[string]bool{}
	for _, e := range effects {
		for _, m := range e.Markers {
			seen[m] = true
		}
	}
	return seen
}

// mayMiss says whether in is an intent exactly-once may call lost when
// it has no effect: a mutating, acknowledged plain intent, one without a
// key, a burst, or a twin (another key for the same request); a dry
// run, a rejected payload, a filler rightly have none.
func mayMiss(in *record.Intent) bool {
	switch in.Role {
	case record.RolePlain, record.RoleNoKey, record.RoleBurst, record.RoleTwin:
		return in.Mutating && in.Acknowledged()
	}
	return false
}

// missingEffect says whether one of intents is mutating, acknowledged and
// without an effect among effects, as exactly-once may call lost: a plain
// intent, one without a key, a burst, or a twin (another key for the same
// request); a dry run, a rejected payload, a filler rightly have none.
func missingEffect(intents []record.Intent, effects []fakes.Effect) bool {
	seen := seenMarkers(effects)
	for i := range intents {
		if mayMiss(&intents[i]) && !seen[intents[i].Marker] {
			return true
		}
	}
	return false
}

// noteBackground marks the session's target as one that acts in the
// background (Session.background) when a fake recorded an effect of an
// intent after the intent's last attempt had its answer: the trials that
// start beside the probes' tails then wait for their effects too. An
// attempt that had none (the client left, the call timed out) may rightly
// be followed by the effect it started.
func (r *runner) noteBackground() {
	if r.s.background == nil || r.s.background.Load() {
		return
	}
	answered := map[string]int64{} // marker: the ledger at its last attempt's end
	for _, in := range r.rec.Intents {
		if len(in.Attempts) == 0 {
			continue
		}
		a := in.Attempts[len(in.Attempts)-1]
		if a.TimedOut || (a.Outcome != record.OK && a.Status == 0) {
			continue
		}
		answered[in.Marker] = max(answered[in.Marker], a.LedgerAfter)
	}
	for _, e := range r.ledger.Effects() {
		if _, fake := r.inst.Fakes[e.Fake]; !fake {
			continue
		}
		for _, m := range e.Markers {
			if end, ok := answered[m]; ok && e.Seq > end {
				r.s.background.Store(true)
				return
			}
		}
	}
}
