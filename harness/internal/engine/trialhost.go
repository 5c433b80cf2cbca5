package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// trialHost is a started instance of the target (with its fakes and
// observers) in a state directory of its own, on which generated trials
// run, one after another or several at once. Trials on one host are told
// apart by their keys and markers, new to every trial: a trial's record
// holds only the effects that carry one of its markers (see run).
type trialHost struct {
	// s is the trials' session that started the host.
	s        *Session
	inst     *Instance
	ledger   *fakes.Ledger
	stateDir string
	// broken is set when a trial on the host ended with a fatal error:
	// the host is then replaced before the next trial.
	broken atomic.Bool
}

// startHost starts an instance of the target in a fresh state directory.
// seed names the host's run (its run id).
func (s *Session) startHost(seed uint64) (*trialHost, error) {
	stateDir, err := os.MkdirTemp("", "idemcheck-trial-")
	if err != nil {
		return nil, err
	}
	h := &trialHost{s: s, ledger: fakes.NewLedger(), stateDir: stateDir}
	if h.inst, err = s.spec.Start(s.ctx, h.ledger, stateDir, fmt.Sprintf("%016x", seed)); err != nil {
		_ = os.RemoveAll(stateDir)
		return nil, err
	}
	return h, nil
}

// close stops the host's observers, target and fakes and removes its state
// directory.
func (h *trialHost) close() {
	_ = h.inst.Close()
	_ = os.RemoveAll(h.stateDir)
}

// run runs one trial on the host and returns its record. seed drives the
// trial's choices; nonce makes its keys and markers its own.
//
// solo says the trial is the only one the host ever runs: its record then
// holds every effect recorded while it ran, as a probe's does. On a shared
// host the record holds only the effects that carry one of the trial's
// markers: an effect without a marker, or with another trial's, may be
// another trial's (a late effect of an earlier one, or one of a trial
// running beside it), and counting it here would be a false finding. The
// probes, which run on a target of their own, judge unmarked effects.
func (h *trialHost) run(nonce, seed uint64, tr scenarios.Trial, solo bool) (*record.Record, error) {
	cfg := h.s.cfg
	from := h.ledger.LastSeq()
	// Call ids name the trial, not the host: two trials on one host must
	// not send the same ids.
	r := &runner{s: h.s, inst: h.inst, ledger: h.ledger, runID: fmt.Sprintf("%016x", seed), seed: seed, nonce: nonce, deps: &depFlight{},
		rng: rand.New(rand.NewPCG(seed, 0x7472))}
	info := h.inst.Target.Info()
	info.Capabilities = r.capabilities(info)
	r.rec = &record.Record{Target: info, Seed: cfg.Seed, Checks: append([]string(nil), cfg.Checks...)}
	byName := map[string]faults.Fault{}
	for _, f := range cfg.Faults {
		byName[f.Name()] = f
	}
	_, burster := h.inst.Target.(Burster)
	whole := func(f faults.Fault) bool { return disrupts(h.inst.Target, f) }
	if p, err := compileTrial(info, tr, byName, burster, whole); err != nil {
		r.fatal = err
	} else {
		r.runProbe(info, p, nil, 1)
		if r.fatal == nil && r.s.background != nil && r.s.background.Load() {
			r.settleBackground()
		}
	}
	if solo {
		r.rec.Ledger = merged(h.inst, h.ledger.Effects())
	} else {
		mine := make(map[string]bool, len(r.rec.Intents))
		for _, in := range r.rec.Intents {
			mine[in.Marker] = true
		}
		for _, e := range h.ledger.Since(from) {
			if slices.ContainsFunc(e.Markers, func(m string) bool { return mine[m] }) {
				r.rec.Ledger = append(r.rec.Ledger, e)
			}
		}
		r.rec.Ledger = merged(h.inst, r.rec.Ledger)
	}
	r.noteObservers(r.rec)
	if r.fatal != nil {
		h.broken.Store(true)
		return r.rec, r.fatal
	}
	return r.rec, h.s.ctx.Err()
}

// freshRun starts a fresh instance of the target (and its fakes), runs
// one trial on it with nonce, and returns the record: the shrinking and
// the replays of a failing trial run this way, so that nothing an earlier
// trial left behind can make or unmake the failure.
func (s *Session) freshRun(nonce, seed uint64, tr scenarios.Trial) (*record.Record, error) {
	h, err := s.startHost(seed)
	if err != nil {
		return nil, err
	}
	defer h.close()
	return h.run(nonce, seed, tr, true)
}

// hostedTrials runs generated trials on one started target, reused from
// trial to trial and shared by the trials that run at once on it (see
// trialHost; a target whose every start is its own gets one per worker,
// see explore), unless the target asked for a fresh one per trial
// (FreshTrials). A trial that restarts the target or takes a fault that
// acts on the whole of it (runsAlone) runs alone: the others wait for it,
// and it for them.
type hostedTrials struct {
	s *Session
	// mu is held shared by each trial while it runs, and exclusively by a
	// trial that runs alone and to replace the host.
	mu   sync.RWMutex
	host *trialHost
	// waited is set once a host that could not start has waited for the
	// probes' own instance of the target to stop (see acquire).
	waited bool
}

// run runs tr on the current host, starting one first if there is none or
// the last broke. A trial's error (which marks its host broken) is not
// believed at once: what an earlier trial left may be its cause, so the
// trial runs once more, on a fresh host, and that run's error counts.
func (t *hostedTrials) run(seed uint64, tr scenarios.Trial) (*record.Record, error) {
	if t.s.cfg.FreshTrials {
		return t.s.freshRun(t.s.hostedNonce(seed, 0), seed, tr)
	}
	alone := runsAlone(tr, t.s.alone)
	for attempt := 0; ; attempt++ {
		h, err := t.acquire(seed, alone)
		if err != nil {
			return nil, err
		}
		rec, err := h.run(t.s.hostedNonce(seed, attempt), seed, tr, false)
		t.release(alone)
		if err == nil || t.s.ctx.Err() != nil || attempt > 0 {
			return rec, err
		}
	}
}

// acquire returns the current host, held shared (or exclusively when
// alone), after starting a fresh one if there is none or it broke. A host
// that cannot start beside the probes' own instance of the target (a
// fake at a fixed address, a fixed port), while the probes still run, is
// tried once more after they are done.
func (t *hostedTrials) acquire(seed uint64, alone bool) (*trialHost, error) {
	for {
		if alone {
			t.mu.Lock()
		} else {
			t.mu.RLock()
		}
		if h := t.host; h != nil && !h.broken.Load() {
			return h, nil
		}
		t.release(alone)
		t.mu.Lock()
		if t.host != nil && t.host.broken.Load() {
			t.host.close()
			t.host = nil
		}
		if t.host == nil {
			h, err := t.s.startHost(seed)
			if err != nil && t.s.probes != nil && !t.waited && t.s.ctx.Err() == nil {
				t.s.probes.done()
				t.waited = true
				h, err = t.s.startHost(seed)
			}
			if err != nil {
				t.mu.Unlock()
				return nil, err
			}
			t.host = h
		}
		t.mu.Unlock()
	}
}

func (t *hostedTrials) release(alone bool) {
	if alone {
		t.mu.Unlock()
	} else {
		t.mu.RUnlock()
	}
}

// runsAlone says whether tr restarts the target or takes one of the
// faults named alone, those that act on the whole target (its trial
// space's Space.Alone: a crash, a restart of its database, a fault that
// acts on every call in flight on it), which the trials running beside it
// would see.
func runsAlone(tr scenarios.Trial, alone []string) bool {
	for _, s := range tr.Steps {
		if s.Restart || slices.Contains(alone, s.Fault) {
			return true
		}
	}
	return false
}

// close stops the current host, if any.
func (t *hostedTrials) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.host != nil {
		t.host.close()
		t.host = nil
	}
}
