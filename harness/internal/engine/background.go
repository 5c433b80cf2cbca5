package engine

import (
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// A target may answer first and act in the background (202, then a job):
// its last intents' effects come after its last answer. Before the run's
// effects are read for the last time, a run with an acknowledged intent
// still without its effect waits for the fakes to fall quiet, so that an
// effect on its way is counted, not called lost.
const (
	// backgroundQuiet is how long the fakes must record nothing new.
	backgroundQuiet = 300 * time.Millisecond
	// backgroundBound bounds the whole wait.
	backgroundBound = 5 * time.Second
)

// settleBackground waits, while an acknowledged mutating intent of the
// run has no effect (missingEffect), until the ledger has recorded
// nothing for backgroundQuiet, at most backgroundBound, or the run ends.
// A target whose every acknowledged intent has its effect waits not at
// all.
func (r *runner) settleBackground() {
	if !missingEffect(r.rec.Intents, r.ledger.Effects()) {
		return
	}
	r.probing("waiting for effects made in the background")
	fresh := make(chan struct{}, 1)
	cancel := r.ledger.Observe(func(fakes.Effect) {
		select {
		case fresh <- struct{}{}:
		default:
		}
	})
	defer cancel()
	bound := time.NewTimer(backgroundBound)
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
			return
		case <-fresh:
			if !missingEffect(r.rec.Intents, r.ledger.Effects()) {
				return
			}
			quiet.Reset(backgroundQuiet)
		}
	}
}

// missingEffect says whether one of intents is mutating, acknowledged and
// without an effect among effects, as exactly-once would call lost: a
// plain intent, one without a key, or a burst (a dry run, a replay of
// another intent's key, a rejected payload rightly have none).
func missingEffect(intents []record.Intent, effects []fakes.Effect) bool {
	seen := map[string]bool{}
	for _, e := range effects {
		for _, m := range e.Markers {
			seen[m] = true
		}
	}
	for i := range intents {
		in := &intents[i]
		switch in.Role {
		case record.RolePlain, record.RoleNoKey, record.RoleBurst:
		default:
			continue
		}
		if in.Mutating && !seen[in.Marker] && in.Acknowledged() {
			return true
		}
	}
	return false
}
