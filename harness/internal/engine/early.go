package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// earlyTrials are generated trials started before the probes' tails were
// done (see Session.startsEarly): they judge what the probes found so
// far, and learn the rest when the probes are done.
type earlyTrials struct {
	cancel context.CancelFunc
	// ended is set once finish or abandon has run.
	ended bool
	// known receives the findings of all the probes, or is closed
	// when the probes could not be done.
	known chan []record.Finding
	done  chan struct{}
	sc    *record.ScenarioResult
	err   error
}

// startEarlyTrials starts the target's generated trials on an instance of
// their own, beside the probes' tails: partial is the probes' record but
// for the tails, whose checks (pending) are judged once the probes are
// done.
func (s *Session) startEarlyTrials(partial *record.Record, pending map[string]bool, sp scenarios.Space) *earlyTrials {
	tctx, cancel := context.WithCancel(s.ctx)
	e := &earlyTrials{cancel: cancel, known: make(chan []record.Finding, 1), done: make(chan struct{})}
	_, known := checks.Evaluate(partial)
	t := s.forTrials(tctx, trialPace(partial), known, &probeFindings{pending: pending, full: e.known})
	go func() {
		defer close(e.done)
		defer func() {
			if x := recover(); x != nil {
				e.err = fmt.Errorf("internal error while running trials against %s: %v", s.spec.Name, x)
			}
		}()
		e.sc, e.err = t.runTrials(sp)
	}()
	return e
}

// finish gives the trials every probe's findings, and returns what they
// showed once they are done.
func (e *earlyTrials) finish(known []record.Finding) (*record.ScenarioResult, error) {
	e.ended = true
	e.known <- known
	<-e.done
	e.cancel()
	return e.sc, e.err
}

// abandon stops the trials, if any were started, and waits for them: the
// probes could not be done.
func (e *earlyTrials) abandon() {
	if e == nil || e.ended {
		return
	}
	e.ended = true
	e.cancel()
	close(e.known)
	<-e.done
}

// probeFindings are the probes' findings for trials that start before
// the probes are done: the checks still pending then, and where the
// findings of every probe arrive (closed if the probes could not be
// done).
type probeFindings struct {
	pending map[string]bool
	full    <-chan []record.Finding

	got bool
	all []record.Finding
	ok  bool
	// once makes done safe for the trial workers that wait at once.
	once sync.Once
}

// wait blocks until the probes are done and returns all their findings;
// ok is false when the probes could not be done.
func (pf *probeFindings) wait() (all []record.Finding, ok bool) {
	if !pf.got {
		pf.all, pf.ok = <-pf.full
		pf.got = true
	}
	return pf.all, pf.ok
}

// done blocks until the probes are done, and may be called by several
// goroutines at once: a host that cannot start beside the probes' own
// instance of the target (a fake at a fixed address) waits for it.
func (pf *probeFindings) done() {
	pf.once.Do(func() { pf.wait() })
}
