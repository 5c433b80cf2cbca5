package engine

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// property is the check run on each generated trial: a trial holds when
// the checks report nothing on it that the probes did not (s.known).
type property struct {
	// s is the trials' session (see Session.forTrials).
	s     *Session
	space scenarios.Space
	start time.Time
	mu    sync.Mutex
	// n counts the trials started.
	n     int
	fatal error
	// failed is the number (from 1) of the first failing trial, 0 while
	// none has failed; last, lastRec and lastFs are its trial, run and
	// new findings.
	failed  int
	last    *scenarios.Trial
	lastRec *record.Record
	lastFs  []record.Finding
	stopped string
	// pending are checks whose probes were not done when the trials
	// started (see probeFindings): a trial whose only new findings are of
	// these checks is deferred (the first such one is kept in deferred,
	// defTrial, defRec and defFs), not failed, until the probes are done.
	pending  map[string]bool
	deferred int
	defTrial *scenarios.Trial
	defRec   *record.Record
	defFs    []record.Finding
	// ended counts the trials ended since the round's first, from is the
	// number before it, and said is when progress was last told.
	ended int
	from  int
	said  time.Time
	// hosts run the trials, each on a target reused from trial to
	// trial: one shared by every worker, or one per worker (see
	// explore).
	hosts []*hostedTrials
}

// hostsFor returns the hosts that workers trials at once run on: one per
// worker when every start of the target is its own instance (its trials
// then never meet another worker's), else one they share.
func (p *property) hostsFor(workers int) []*hostedTrials {
	if !p.s.spec.Isolated || workers < 1 {
		workers = 1
	}
	if len(p.hosts) != workers {
		p.closeHosts()
		for range workers {
			p.hosts = append(p.hosts, &hostedTrials{s: p.s})
		}
	}
	return p.hosts
}

// closeHosts stops every host's target, if started.
func (p *property) closeHosts() {
	for _, h := range p.hosts {
		h.close()
	}
	p.hosts = nil
}

// begin says whether trial number n (from 1) may start: not after a fatal
// error, a cancelled context, a spent budget, or an earlier trial's
// failure.
func (p *property) begin(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fatal != nil || p.s.ctx.Err() != nil || p.stopped != "" || (p.failed > 0 && p.failed < n) {
		return false
	}
	if budget := p.s.cfg.Budget; budget > 0 && time.Since(p.start) > budget {
		p.stopped = fmt.Sprintf("the budget of %s ran out", budget)
		return false
	}
	p.n++
	return true
}

// check runs tr, trial number n, on h and records it in p when it fails
// and no earlier trial did.
func (p *property) check(h *hostedTrials, n int, tr scenarios.Trial) {
	defer p.trialEnded()
	rec, err := h.run(p.s.seed+uint64(n)*0x9e3779b97f4a7c15, tr)
	fs, err := p.s.trialFindings(rec, err)
	if err != nil {
		p.mu.Lock()
		if p.fatal == nil && p.s.ctx.Err() == nil {
			p.fatal = err
		}
		p.mu.Unlock()
		return
	}
	if len(fs) == 0 {
		return
	}
	decisive := slices.ContainsFunc(fs, func(f record.Finding) bool { return !p.pending[f.Check] })
	p.mu.Lock()
	switch {
	case decisive && (p.failed == 0 || n < p.failed):
		p.failed, p.last, p.lastRec, p.lastFs = n, &tr, rec, fs
	case !decisive && (p.deferred == 0 || n < p.deferred):
		p.deferred, p.defTrial, p.defRec, p.defFs = n, &tr, rec, fs
	}
	p.mu.Unlock()
}

// trialEnded counts a trial that ended, and tells the progress every 25
// trials done, at least every progressEvery, and for the last.
func (p *property) trialEnded() {
	if p.s.progress == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended++
	total := p.s.cfg.Trials
	n := min(p.from+p.ended, total)
	if n%25 == 0 || n == total || time.Since(p.said) >= progressEvery {
		p.said = time.Now()
		p.s.progress(trialProgress(p.s.spec.Name, n, total, time.Since(p.start), p.s.cfg.Budget))
	}
}

// settle decides, once every probe's findings are known (all), which
// trial failed: a deferred trial fails if a finding of it is new to them
// all, and comes first if it was drawn before the failing one; a failing
// trial whose findings all restate what the probes' tails found fails no
// more.
func (p *property) settle(all []record.Finding) {
	p.s.known = all
	if p.deferred > 0 && (p.failed == 0 || p.deferred < p.failed) {
		if fs := checks.Novel(all, p.defFs); len(fs) > 0 {
			p.failed, p.last, p.lastRec, p.lastFs = p.deferred, p.defTrial, p.defRec, fs
		}
	}
	if p.failed > 0 {
		p.lastFs = checks.Novel(all, p.lastFs)
		if len(p.lastFs) == 0 {
			p.failed, p.last, p.lastRec = 0, nil, nil
		}
	}
}

// explore runs generated trials from number from+1 up to the
// configuration's Trials, TrialWorkers at a time, and stops at the first
// that fails. Trial i is drawn by rapid's generator from a seed of its
// own, derived from the session's: the same seed draws the same trials,
// and no process-wide setting (flags, rapid's own seed) is read or
// changed, so several targets explore at once. When one fails, the
// trials after it stop starting, those before it still running finish,
// and the first failing one is kept.
//
// A target whose every start is its own instance (Spec.Isolated) gets an
// instance per worker, and worker w runs the trials from+1+w,
// from+1+w+workers, … in that order on its own: what a trial finds
// depends only on the trials before it on its instance, which every run
// of the seed runs the same, so the same seed keeps the same
// counterexample whatever the number of processors or the order the
// trials finish in. Other targets are one instance that the workers
// share, each taking the next trial: which fails first may then depend
// on timing.
func (p *property) explore(from int) {
	n, workers := p.s.cfg.Trials, p.s.cfg.TrialWorkers
	gen := scenarios.Gen(lateSpace(p.s.cfg.Late, p.space))
	draw := func(i int) scenarios.Trial {
		s := p.s.seed + uint64(i)*0xbf58476d1ce4e5b9
		return gen.Example(int(s >> 1))
	}
	hosts := p.hostsFor(workers)
	var wg sync.WaitGroup
	if len(hosts) > 1 {
		for w, h := range hosts {
			wg.Go(func() {
				for i := from + 1 + w; i <= n && p.begin(i); i += len(hosts) {
					p.check(h, i, draw(i))
				}
			})
		}
		wg.Wait()
		return
	}
	var mu sync.Mutex
	next := from
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= n || !p.begin(next+1) {
			return 0, false
		}
		next++
		return next, true
	}
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				p.check(hosts[0], i, draw(i))
			}
		})
	}
	wg.Wait()
}

// lateSpace lets trials over sp send up to l.LateKeys other keys in one
// step and wait for up to l.TrialWait.
func lateSpace(l checks.LateOptions, sp scenarios.Space) scenarios.Space {
	if sp.Fill == 0 {
		sp.Fill = l.LateKeys
	}
	if sp.Wait == 0 {
		sp.Wait = min(max(l.TrialWait, 0), scenarios.MaxWait)
	}
	return sp
}
