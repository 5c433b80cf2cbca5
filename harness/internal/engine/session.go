package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Session is one target's run, and what every part of it works with: the
// context, the target's spec, its configuration, its seed and where
// progress is said. The probes run in the target's session; the generated
// trials, their shrinking and their replays in a session of their own
// (forTrials), which also holds what the probes found.
type Session struct {
	ctx  context.Context
	spec Spec
	cfg  Config
	// seed is the target's own (see targetSeed).
	seed uint64
	// progress, if not nil, is told how the run goes, a line at a time.
	progress func(string)

	// The generated trials' session only:
	//
	// pace bounds the waits of waiting faults (trialPace; 0 keeps the
	// configured waits); known are the probes' findings, of which a trial
	// must show something new to fail; probes, when not nil, are the
	// probes still running beside the trials, whose findings arrive
	// later; runs numbers the runs of the shrinking and the replays.
	pace   time.Duration
	known  []record.Finding
	probes *probeFindings
	runs   *atomic.Uint64

	// early are the trials started beside the probes' tails, if any.
	early *earlyTrials
	// serial says that an observer attributes the target's effects by
	// delta: its intents run one at a time (see notSerial).
	serial bool
	// background is set once the probes saw the target make an effect
	// after its last answer (settleBackground): each trial then waits for
	// its effects as the probes did. Shared with the trials' session.
	background *atomic.Bool
	// alone names, in the trials' session, the faults that act on the
	// whole target (the trial space's Space.Alone): a trial that takes
	// one runs alone on a shared target (runsAlone).
	alone []string
}

// NewSession returns the session of a run of spec with cfg; progress, if
// not nil, is told how it goes.
func NewSession(ctx context.Context, spec Spec, cfg Config, progress func(string)) *Session {
	return &Session{ctx: ctx, spec: spec, cfg: cfg, seed: targetSeed(cfg.Seed, spec.Name), progress: progress, background: new(atomic.Bool)}
}

// targetSeed derives a target's seed from the run's, so that adding a
// target does not change what another one sees.
func targetSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return seed ^ h.Sum64()
}

// Run tests the target: the probes, then the generated trials (beside the
// probes' tails when every start of the target is its own), then the
// score. A target that cannot be started or tested gets an Error;
// trialsFailed says that the Error is the generated trials' (a trial
// could not run), the probes' record being whole. A panic is an Error
// too, and nothing the run started outlives it.
func (s *Session) Run() (tr record.TargetResult, trialsFailed bool) {
	start := time.Now()
	defer func() {
		tr.Duration = time.Since(start)
		if p := recover(); p != nil {
			tr.Error = fmt.Sprintf("internal error while testing %s: %v", s.spec.Name, p)
			s.early.abandon() // nothing outlives the target's run
		}
	}()
	tr, sp := s.probe()
	if tr.Error != "" || tr.Record == nil {
		s.early.abandon()
		return tr, false
	}
	if msg := checks.Untestable(tr.Record); msg != "" {
		// No trial can tell more about a target the probes could not test.
		s.early.abandon()
		tr.Error = msg + keyFormatHint(tr.Record, s.spec.KeyFormat)
		return tr, false
	}
	if s.wantsTrials() {
		_, known := checks.Evaluate(tr.Record)
		var sc *record.ScenarioResult
		var err error
		if s.early != nil {
			sc, err = s.early.finish(known)
		} else {
			sc, err = s.forTrials(s.ctx, trialPace(tr.Record), known, nil).runTrials(sp)
		}
		tr.Scenario = sc
		if err != nil {
			if s.ctx.Err() != nil {
				tr.Error = "interrupted: " + s.ctx.Err().Error()
				return tr, false
			}
			tr.Error = "generated trials: " + err.Error()
			return tr, true
		}
	}
	checks.Score(&tr)
	return tr, false
}

// wantsTrials says whether generated trials run: once per run, in the
// first shard of a split one.
func (s *Session) wantsTrials() bool {
	return (s.cfg.Trials > 0 || len(s.cfg.Replay) > 0) && s.cfg.Shard <= 1
}

// mayIdle says whether a wait of this session may give up the target's
// place among the targets that work at once: the probes' session only
// (its probes run one after another) and only while no generated trials
// run beside them.
func (s *Session) mayIdle() bool {
	return s.cfg.Idle != nil && s.runs == nil && s.early == nil
}

// startsEarly says whether the trials start beside the probes' tails: on
// an instance of their own as soon as the probes are done but their tails
// (the late retries, which mostly wait), so that the run takes the longer
// of the two, not both.
func (s *Session) startsEarly() bool { return s.wantsTrials() && s.spec.Isolated && !s.serial }

// beforeTails is told by the probes' runner, when the session starts its
// trials early, that the probes but their tails have run: partial is the
// record so far, pending the checks the tails serve, sp what trials may
// contain. A target the probes so far cannot test gets no trials.
func (s *Session) beforeTails(partial *record.Record, pending map[string]bool, sp scenarios.Space) {
	if checks.Untestable(partial) != "" {
		return
	}
	s.early = s.startEarlyTrials(partial, pending, sp)
}

// forTrials returns the session the generated trials run in: ctx, what
// the probes found (known, and, when probes is not nil, the findings of
// the probes still running as they arrive), and the target's pace (see
// trialPace), which waiting faults and the first wait before a retry keep.
func (s *Session) forTrials(ctx context.Context, pace time.Duration, known []record.Finding, probes *probeFindings) *Session {
	t := &Session{ctx: ctx, spec: s.spec, cfg: s.cfg, seed: s.seed, progress: s.progress,
		pace: pace, known: known, probes: probes, runs: new(atomic.Uint64), serial: s.serial, background: s.background}
	t.cfg.Faults = pacedFaults(s.cfg.Faults, pace)
	if pace > 0 {
		// The first wait before a retry (after "in progress", or after
		// failures) keeps the target's pace too.
		t.cfg.Backoff = min(t.cfg.Backoff, pace)
	}
	return t
}

// nextNonce is the nonce of the next run of the shrinking or the replays
// of a failing trial: the run's, mixed with the run's number. Those runs
// are made one after another, so the same seed and nonce number them the
// same, and a shrunk trial tried again, which starts from the same seed,
// still sends keys new to a store that outlives the target.
func (s *Session) nextNonce() uint64 {
	return s.cfg.Nonce ^ (s.runs.Add(1) * 0x9e3779b97f4a7c15)
}

// hostedNonce is the nonce of the generated trial drawn from seed (each
// trial's own), run for the attempt-th time: the same seed and nonce give
// the trial the same keys whichever worker runs it and when, and no two
// trials, nor a trial and a shrinking run, share one.
func (s *Session) hostedNonce(seed uint64, attempt int) uint64 {
	x := seed ^ 0x6a09e667f3bcc909 + uint64(attempt+1)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return s.cfg.Nonce ^ x
}
