package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/scenarios"
)

// trialHost is a started target with its fakes, observers and state
// directory, on which generated trials run, one after another or several
// at once. Trials on one host are told apart by their keys and markers,
// new to every trial: a trial's record holds only the effects that carry
// one of its markers (see run).
type trialHost struct {
	spec     Spec
	env      *Env
	ledger   *fakes.Ledger
	target   Target
	obs      []EffectObserver
	closeObs func()
	stateDir string
	// broken is set when a trial on the host ended with a fatal error:
	// the host is then replaced before the next trial.
	broken atomic.Bool
}

// startHost starts spec's fakes, target and observers in a fresh state
// directory. seed names the host's run (Env.RunID).
func startHost(ctx context.Context, spec Spec, seed uint64) (_ *trialHost, err error) {
	h := &trialHost{spec: spec, ledger: fakes.NewLedger(), closeObs: func() {}}
	h.stateDir, err = os.MkdirTemp("", "idemcheck-trial-")
	if err != nil {
		return nil, err
	}
	h.env = &Env{Fakes: map[string]fakes.Fake{}, Ledger: h.ledger, StateDir: h.stateDir, RunID: fmt.Sprintf("%016x", seed)}
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	for _, start := range spec.Fakes {
		f, err := start(ctx, h.ledger)
		if err != nil {
			return nil, fmt.Errorf("cannot start a fake: %w", err)
		}
		h.env.Fakes[f.Name()] = f
	}
	if h.target, err = spec.Start(ctx, h.env); err != nil {
		return nil, err
	}
	if h.obs, h.closeObs, err = startObservers(ctx, spec, h.env, h.target); err != nil {
		return nil, err
	}
	return h, nil
}

// close stops the host's observers, target and fakes and removes its state
// directory.
func (h *trialHost) close() {
	h.closeObs()
	if h.target != nil {
		_ = h.target.Close()
	}
	for _, f := range h.env.Fakes {
		_ = f.Close()
	}
	_ = os.RemoveAll(h.stateDir)
}

// run runs one trial on the host and returns its record. seed drives the
// trial's choices; o.Nonce makes its keys and markers its own.
//
// solo says the trial is the only one the host ever runs: its record then
// holds every effect recorded while it ran, as a probe's does. On a shared
// host the record holds only the effects that carry one of the trial's
// markers: an effect without a marker, or with another trial's, may be
// another trial's (a late effect of an earlier one, or one of a trial
// running beside it), and counting it here would be a false finding. The
// probes, which run on a target of their own, judge unmarked effects.
func (h *trialHost) run(ctx context.Context, o Options, seed uint64, tr scenarios.Trial, solo bool) (*Record, error) {
	from := h.ledger.LastSeq()
	env := *h.env
	// Call ids name the trial, not the host: two trials on one host must
	// not send the same ids.
	env.RunID = fmt.Sprintf("%016x", seed)
	r := &runner{ctx: ctx, opts: o, target: h.target, env: &env, ledger: h.ledger, seed: seed, keyFormat: h.spec.KeyFormat,
		rng: rand.New(rand.NewPCG(seed, 0x7472)), observers: h.obs}
	info := h.target.Info()
	info.Capabilities = r.capabilities(info)
	r.rec = &Record{Target: info, Seed: o.Seed, Checks: append([]string(nil), o.Checks...)}
	byName := map[string]faults.Fault{}
	for _, f := range o.Faults {
		byName[f.Name()] = f
	}
	_, burster := h.target.(Burster)
	if p, err := compileTrial(info, tr, byName, burster); err != nil {
		r.fatal = err
	} else {
		r.runProbe(info, p, 1)
	}
	if solo {
		r.rec.Ledger = h.ledger.Effects()
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
	}
	if r.fatal != nil {
		h.broken.Store(true)
		return r.rec, r.fatal
	}
	return r.rec, ctx.Err()
}

// trialRun starts a fresh target (and its fakes) from spec, runs one trial
// on it, and returns the record: the shrinking and the replays of a
// failing trial run this way, so that nothing an earlier trial left
// behind can make or unmake the failure.
//
// o.Nonce is the trial run's own (see trialNonce and hostedNonce): a
// shrunk trial tried again starts from the same seed, and its keys must
// still be new to a store that outlives the target.
func trialRun(ctx context.Context, spec Spec, o Options, seed uint64, tr scenarios.Trial) (*Record, error) {
	h, err := startHost(ctx, spec, seed)
	if err != nil {
		return nil, err
	}
	defer h.close()
	return h.run(ctx, o, seed, tr, true)
}

// trialNonce returns o with a nonce of its own for one run of the
// shrinking or the replays of a failing trial, the run's mixed with the
// trial run's number: those runs are made one after another, so the same
// seed and nonce number them the same.
func (o Options) trialNonce() Options {
	if o.trialRuns != nil {
		o.Nonce ^= (o.trialRuns.Add(1)) * 0x9e3779b97f4a7c15
	}
	return o
}

// hostedNonce returns o with the nonce of a generated trial drawn from
// seed (each trial's own), run for the attempt-th time: the same seed
// and nonce give the trial the same keys whichever worker runs it and
// when, and no two trials, nor a trial and a shrinking run, share one.
func (o Options) hostedNonce(seed uint64, attempt int) Options {
	x := seed ^ 0x6a09e667f3bcc909 + uint64(attempt+1)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	o.Nonce ^= x
	return o
}

// hostedTrials runs generated trials on one started target, reused from
// trial to trial and shared by the trials that run at once on it (see
// trialHost; a target whose every start is its own gets one per worker,
// see explore), unless the target asked for a fresh one per trial
// (WithFreshTrials). A trial that restarts or crashes the target runs
// alone: the others wait for it, and it for them.
type hostedTrials struct {
	spec Spec
	// mu is held shared by each trial while it runs, and exclusively by a
	// trial that runs alone and to replace the host.
	mu   sync.RWMutex
	host *trialHost
	// probesDone, if set, waits until the probes' own instance of the
	// target is stopped: a host that cannot start beside it (a fake at a
	// fixed address, a fixed port) is tried once more after.
	probesDone func()
}

// run runs tr on the current host, starting one first if there is none or
// the last broke. A trial's error (which marks its host broken) is not
// believed at once: what an earlier trial left may be its cause, so the
// trial runs once more, on a fresh host, and that run's error counts.
func (t *hostedTrials) run(ctx context.Context, o Options, seed uint64, tr scenarios.Trial) (*Record, error) {
	if o.FreshTrials {
		return trialRun(ctx, t.spec, o.hostedNonce(seed, 0), seed, tr)
	}
	alone := runsAlone(tr, o.Faults)
	for attempt := 0; ; attempt++ {
		h, err := t.acquire(ctx, seed, alone)
		if err != nil {
			return nil, err
		}
		rec, err := h.run(ctx, o.hostedNonce(seed, attempt), seed, tr, false)
		t.release(alone)
		if err == nil || ctx.Err() != nil || attempt > 0 {
			return rec, err
		}
	}
}

// acquire returns the current host, held shared (or exclusively when
// alone), after starting a fresh one if there is none or it broke.
func (t *hostedTrials) acquire(ctx context.Context, seed uint64, alone bool) (*trialHost, error) {
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
			h, err := startHost(ctx, t.spec, seed)
			if err != nil && t.probesDone != nil && ctx.Err() == nil {
				t.probesDone()
				t.probesDone = nil
				h, err = startHost(ctx, t.spec, seed)
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

// runsAlone says whether tr restarts or crashes the target, which the
// trials running beside it would see.
func runsAlone(tr scenarios.Trial, fs []faults.Fault) bool {
	crash := map[string]bool{}
	for _, f := range fs {
		if _, ok := f.(faults.CrashFault); ok {
			crash[f.Name()] = true
		}
	}
	for _, s := range tr.Steps {
		if s.Restart || crash[s.Fault] {
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
