package harness

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/scenarios"
)

// space describes what trials against info may contain.
func space(info TargetInfo, fs []faults.Fault, supports func(faults.Fault) bool, burst int) scenarios.Space {
	caps := info.Caps()
	if !caps.Burst {
		burst = 0
	}
	// Steps overlap where the target takes calls at once (it can take a
	// burst), never under a fault that kills it.
	s := scenarios.Space{Restart: caps.Restart, Burst: burst, Overlap: caps.Burst}
	for _, op := range info.Operations {
		s.Ops = append(s.Ops, scenarios.Op{Name: op.Name, Mutating: op.Mutating, DryRun: op.DryRun, Inputs: len(op.Inputs) > 0})
	}
	for _, f := range fs {
		if supports(f) {
			s.Faults = append(s.Faults, f.Name())
			if _, crash := f.(faults.CrashFault); crash {
				s.Alone = append(s.Alone, f.Name())
			}
		}
	}
	return s
}

// compileTrial turns a generated trial into the probe that runs it (a
// fixed trial and a generated one run through the same interpreter): each
// step becomes one step of the probe, with the role its key policy gives
// it, except a step that sends other keys (Fill), which becomes that many
// fillers, and a wait a pause. byName resolves fault names; burster says
// whether the target takes a burst. A plain intent retried after other
// keys or a pause is a late one, judged by retry.late.
func compileTrial(info TargetInfo, tr scenarios.Trial, byName map[string]faults.Fault, burster bool) (Probe, error) {
	p := Probe{Name: "trial"}
	at := make([]int, len(tr.Steps)) // trial step → the probe step of its intent, -1 for none
	ref := func(i, of int) (int, error) {
		if of < 0 || of >= i || at[of] < 0 {
			return 0, fmt.Errorf("trial step %d refers to step %d, which made no intent before it", i+1, of+1)
		}
		return at[of], nil
	}
	for i, s := range tr.Steps {
		label := fmt.Sprintf("trial step %d", i+1)
		at[i] = -1
		if s.Wait > 0 {
			p.Steps = append(p.Steps, Step{Pause: s.Wait, Restart: s.Restart, KeyFrom: -1, InputsFrom: -1, Label: label})
			continue
		}
		op, ok := info.Operation(s.Op)
		if !ok {
			return Probe{}, fmt.Errorf("trial step %d: the target has no operation %q", i+1, s.Op)
		}
		if s.Fill > 0 {
			for k := range s.Fill {
				f := Fresh(RoleFiller, s.Op)
				f.Label, f.Restart = label, s.Restart && k == 0
				p.Steps = append(p.Steps, f)
			}
			at[i] = len(p.Steps) - 1
			continue
		}
		fault := byName[s.Fault]
		if _, crash := fault.(faults.CrashFault); crash && tr.GroupEnd(tr.GroupStart(i))-tr.GroupStart(i) > 1 {
			return Probe{}, fmt.Errorf("trial step %d: %s kills the target, so it cannot run at the same time as another step", i+1, s.Fault)
		}
		st := Fresh(RolePlain, s.Op)
		st.Fault, st.Label, st.Restart, st.With, st.GiveUp = fault, label, s.Restart, s.With && i > 0, s.GiveUp
		st.UntilOK = !s.GiveUp
		switch {
		case s.Key == scenarios.Again:
			j, err := ref(i, s.Of)
			if err != nil {
				return Probe{}, err
			}
			st.Again, st.KeyFrom, st.InputsFrom, st.Role = true, j, j, p.Steps[j].Role
			// The intent retried is the one its first step made (step Of
			// may itself be a retry): a plain one, with other keys or a
			// pause since it was made, is a late one.
			if o := tr.Origin(s.Of); at[o] >= 0 && p.Steps[at[o]].Role == RolePlain && lateBetween(tr, o, i) {
				p.Steps[at[o]].Role = RoleLate // retry.late judges it
			}
		case !op.Mutating:
			st.Role, st.UntilOK = RoleRead, false
		case s.DryRun:
			st.Role, st.DryRun, st.UntilOK = RoleDryRun, true, false
		case s.Burst > 1:
			st.Role = RoleBurst
			if burster {
				st.Burst = s.Burst
			}
		case s.Key == scenarios.None:
			st.Role, st.NoKey = RoleNoKey, true
		case s.Key == scenarios.Twin:
			j, err := ref(i, s.Of)
			if err != nil {
				return Probe{}, err
			}
			st.Role, st.InputsFrom = RoleTwin, j
		case s.Key == scenarios.Changed:
			j, err := ref(i, s.Of)
			if err != nil {
				return Probe{}, err
			}
			st.Role, st.KeyFrom, st.InputsFrom, st.Change, st.UntilOK = RoleMismatch, j, j, true, false
		}
		at[i] = len(p.Steps)
		p.Steps = append(p.Steps, st)
	}
	return p, nil
}

// lateBetween says whether a step between steps from and to sent other
// keys or waited: a retry at step to is then a late one.
func lateBetween(tr scenarios.Trial, from, to int) bool {
	for _, s := range tr.Steps[from+1 : to] {
		if s.Fill > 0 || s.Wait > 0 {
			return true
		}
	}
	return false
}

// findingChecks returns the distinct checks of fs, sorted.
func findingChecks(fs []Finding) []string {
	seen := map[string]bool{}
	var ids []string
	for _, f := range fs {
		if !seen[f.Check] {
			seen[f.Check] = true
			ids = append(ids, f.Check)
		}
	}
	sort.Strings(ids)
	return ids
}

// property is the check run on each generated trial: a trial holds when
// the checks report nothing on it that the probes did not.
type property struct {
	ctx   context.Context
	spec  Spec
	opts  Options
	space scenarios.Space
	// known are the probes' findings: a trial fails only when it shows
	// something they did not.
	known  []Finding
	seed   uint64
	start  time.Time
	budget time.Duration
	mu     sync.Mutex
	// n counts the trials started.
	n     int
	fatal error
	// failed is the number (from 1) of the first failing trial, 0 while
	// none has failed; last, lastRec and lastFs are its trial, run and
	// new findings.
	failed  int
	last    *scenarios.Trial
	lastRec *Record
	lastFs  []Finding
	stopped string
	// pending are checks whose probes were not done when the trials
	// started (see probeFindings): a trial whose only new findings are of
	// these checks is deferred (the first such one is kept in deferred,
	// defTrial, defRec and defFs), not failed, until the probes are done.
	pending  map[string]bool
	deferred int
	defTrial *scenarios.Trial
	defRec   *Record
	defFs    []Finding
	// onTrial is told of each trial as it ends; ended counts the trials
	// ended since the round's first, from is the number before it.
	onTrial func()
	ended   int
	from    int
	// hosts run the trials, each on a target reused from trial to
	// trial: one shared by every worker, or one per worker (see
	// explore).
	hosts []*hostedTrials
	// probesDone, if set, waits until the probes are done (see
	// hostedTrials.probesDone).
	probesDone func()
}

// trialWorkers is how many trials run at once on spec (see
// Options.TrialWorkers).
func trialWorkers(spec Spec, o Options) int {
	switch {
	case o.TrialWorkers > 0:
		return o.TrialWorkers
	case spec.Isolated:
		return DefaultTrialWorkers
	}
	return 1
}

// hostsFor returns the hosts that workers trials at once run on: one per
// worker when every start of the target is its own instance (its trials
// then never meet another worker's), else one they share.
func (p *property) hostsFor(workers int) []*hostedTrials {
	if !p.spec.Isolated || workers < 1 {
		workers = 1
	}
	if len(p.hosts) != workers {
		p.closeHosts()
		for range workers {
			p.hosts = append(p.hosts, &hostedTrials{spec: p.spec, probesDone: p.probesDone})
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
	if p.fatal != nil || p.ctx.Err() != nil || p.stopped != "" || (p.failed > 0 && p.failed < n) {
		return false
	}
	if p.budget > 0 && time.Since(p.start) > p.budget {
		p.stopped = fmt.Sprintf("the budget of %s ran out", p.budget)
		return false
	}
	p.n++
	return true
}

// check runs tr, trial number n, on h and records it in p when it fails
// and no earlier trial did.
func (p *property) check(h *hostedTrials, n int, tr scenarios.Trial) {
	if p.onTrial != nil {
		defer p.onTrial()
	}
	rec, err := h.run(p.ctx, p.opts, p.seed+uint64(n)*0x9e3779b97f4a7c15, tr)
	if err != nil {
		p.mu.Lock()
		if p.fatal == nil && p.ctx.Err() == nil {
			p.fatal = err
		}
		p.mu.Unlock()
		return
	}
	_, fs := Evaluate(rec)
	fs = checks.Novel(p.known, fs)
	if len(fs) == 0 {
		return
	}
	decisive := slices.ContainsFunc(fs, func(f Finding) bool { return !p.pending[f.Check] })
	p.mu.Lock()
	switch {
	case decisive && (p.failed == 0 || n < p.failed):
		p.failed, p.last, p.lastRec, p.lastFs = n, &tr, rec, fs
	case !decisive && (p.deferred == 0 || n < p.deferred):
		p.deferred, p.defTrial, p.defRec, p.defFs = n, &tr, rec, fs
	}
	p.mu.Unlock()
}

// settle decides, once every probe's findings are known (all), which
// trial failed: a deferred trial fails if a finding of it is new to them
// all, and comes first if it was drawn before the failing one; a failing
// trial whose findings all restate what the probes' tails found fails no
// more.
func (p *property) settle(all []Finding) {
	p.known = all
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

// probeFindings are the probes' findings for trials that start before
// the probes are done: the checks still pending then, and where the
// findings of every probe arrive (closed if the probes could not be
// done).
type probeFindings struct {
	pending map[string]bool
	full    <-chan []Finding

	got bool
	all []Finding
	ok  bool
}

// wait blocks until the probes are done and returns all their findings;
// ok is false when the probes could not be done.
func (pf *probeFindings) wait() (all []Finding, ok bool) {
	if !pf.got {
		pf.all, pf.ok = <-pf.full
		pf.got = true
	}
	return pf.all, pf.ok
}

// done says whether the run must stop: a fatal error, a cancelled
// context, a spent budget or a failure.
func (p *property) done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fatal != nil || p.ctx.Err() != nil || p.stopped != "" || p.failed > 0
}

// explore runs generated trials from number from+1 up to n through p,
// workers at a time, and stops at the first that fails. Trial i is drawn
// by rapid's generator from a seed of its own, derived from p.seed: the
// same seed draws the same trials, and no process-wide setting (flags,
// rapid's own seed) is read or changed, so several targets explore at
// once. When one fails, the trials after it stop starting, those before
// it still running finish, and the first failing one is kept.
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
func explore(p *property, from, n, workers int) {
	gen := scenarios.Gen(lateSpace(p.opts.LateOptions, p.space))
	draw := func(i int) scenarios.Trial {
		s := p.seed + uint64(i)*0xbf58476d1ce4e5b9
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

// progressEvery is the longest time between two progress lines of a
// target's trials.
const progressEvery = 2 * time.Second

// trialProgress is the progress line after done of total trials took
// elapsed: how many, the time left at this pace, and the budget left.
func trialProgress(name string, done, total int, elapsed, budget time.Duration) string {
	line := fmt.Sprintf("%s: %d of %d trials", name, done, total)
	if done > 0 && done < total {
		eta := elapsed / time.Duration(done) * time.Duration(total-done)
		if budget > 0 {
			eta = min(eta, max(budget-elapsed, 0))
		}
		line += fmt.Sprintf(", about %s left", eta.Round(time.Second))
	}
	if budget > 0 {
		line += fmt.Sprintf(", %s of the budget left", max(budget-elapsed, 0).Round(time.Second))
	}
	return line
}

// A waiting fault (a client timeout, a hang, a delay) waits, in generated
// trials, at most trialPaceFactor times the target's usual reply time, and
// at least trialPaceFloor: the probes keep the configured waits, the many
// trials keep the pace of the target. What such a fault shows does not
// depend on the wait: a client that gives up before the target is done
// retries while the first call is in flight, which trials want too.
const (
	trialPaceFactor = 4
	trialPaceFloor  = 2 * time.Millisecond
)

// trialPace is the longest wait of a waiting fault in the trials after
// the probes of rec: trialPaceFactor times the median of their unfaulted
// attempts' times (those sent alone: not a burst's copies, not fillers),
// at least trialPaceFloor; 0 (the configured waits) when the probes timed
// no such attempt.
func trialPace(rec *Record) time.Duration {
	if rec == nil {
		return 0
	}
	var ds []time.Duration
	for _, in := range rec.Intents {
		if in.Role == RoleFiller {
			continue // sent eight at a time: slower each than one alone
		}
		for _, a := range in.Attempts {
			if a.Fault == "" && !a.Burst && !a.End.IsZero() {
				ds = append(ds, a.End.Sub(a.Start))
			}
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return max(trialPaceFactor*ds[len(ds)/2], trialPaceFloor)
}

// pacedFaults returns fs with every waiting fault made to wait at most
// pace (fs itself when pace is 0).
func pacedFaults(fs []faults.Fault, pace time.Duration) []faults.Fault {
	if pace <= 0 {
		return fs
	}
	out := make([]faults.Fault, len(fs))
	for i, f := range fs {
		if w, ok := f.(faults.Waiting); ok {
			f = w.Within(pace)
		}
		out[i] = f
	}
	return out
}

// runScenarios runs the saved trials of o.Replay first (one that still
// fails is the counterexample, and nothing is generated), then generates
// trials against spec until one fails (then shrinks it on fresh instances
// of spec and replays it: see confirm) or o.Trials have passed; past a
// failure that never happens again on replay the trials go on, up to
// flakyRounds failures in all. The trials share a running target (one per
// worker: see explore) unless o.FreshTrials. A trial fails only on a finding that known, the probes'
// findings, does not already hold. Waiting faults, and the waits before a
// retry, keep the target's pace (o.trialPace).
//
// pf, when not nil, says that the probes were not done when the trials
// started: known holds the findings of those done, and the rest arrive
// through pf before a failing trial is shrunk.
func runScenarios(ctx context.Context, spec Spec, o Options, known []Finding, pf *probeFindings, sp scenarios.Space, seed uint64, progress func(string)) (*ScenarioResult, error) {
	res := &ScenarioResult{}
	defer func() {
		if res.Counterexample != nil {
			res.Steps = res.Counterexample.String()
		}
	}()
	// The shrinking and replay runs are numbered per target, one after
	// another: the same seed and nonce number them the same.
	o.trialRuns = new(atomic.Uint64)
	o.Faults = pacedFaults(o.Faults, o.trialPace)
	if o.trialPace > 0 {
		// The first wait before a retry (after "in progress", or after
		// failures) keeps the target's pace too.
		o.Backoff = min(o.Backoff, o.trialPace)
	}
	if pf != nil && len(o.Replay) > 0 {
		// Saved trials are judged against every probe's findings.
		all, ok := pf.wait()
		if !ok {
			return res, nil
		}
		known, pf = all, nil
	}
	for _, saved := range o.Replay {
		if saved.Target != "" && saved.Target != spec.Name {
			continue
		}
		rec, err := trialRun(ctx, spec, o.trialNonce(), seed, saved.Trial)
		if err != nil {
			return res, err
		}
		_, fs := Evaluate(rec)
		fs = checks.Novel(known, fs)
		res.Replayed = append(res.Replayed, ReplayedTrial{Trial: saved.Trial, StillFail: len(fs) > 0, Checks: findingChecks(fs)})
		if len(fs) > 0 && res.Counterexample == nil {
			tr := saved.Trial
			res.Counterexample, res.Record, res.Findings = &tr, rec, fs
		}
	}
	if o.Trials <= 0 || res.Counterexample != nil {
		return res, nil
	}
	p := &property{ctx: ctx, spec: spec, opts: o, space: sp, known: known, seed: seed, start: time.Now(), budget: o.Budget}
	if pf != nil {
		p.pending = pf.pending
		if pf.full != nil {
			// A host that cannot start beside the probes' instance (a
			// fake at a fixed address) starts once the probes are done.
			var once sync.Once
			p.probesDone = func() { once.Do(func() { pf.wait() }) }
		}
	}
	if progress != nil {
		// A line every 25 trials done, at least every two seconds, and
		// for the last.
		last := time.Now()
		p.onTrial = func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.ended++
			n := min(p.from+p.ended, o.Trials)
			if n%25 == 0 || n == o.Trials || time.Since(last) >= progressEvery {
				last = time.Now()
				progress(trialProgress(spec.Name, n, o.Trials, time.Since(p.start), o.Budget))
			}
		}
	}
	defer p.closeHosts()
	from := 0
	for round := 1; ; round++ {
		began := time.Now()
		p.mu.Lock()
		p.from, p.ended = from, 0
		p.mu.Unlock()
		explore(p, from, o.Trials, trialWorkers(spec, o))
		res.Elapsed += time.Since(began)
		if pf != nil && (p.failed > 0 || p.deferred > 0) {
			all, ok := pf.wait()
			if !ok {
				return res, nil // the probes could not be done: their error is the target's
			}
			p.settle(all)
			known = all
		}
		res.Trials, res.Stopped = p.n, p.stopped
		if p.failed > 0 {
			// The trials after the first failing one that were already
			// running when it failed do not count: the same seed reports
			// the same number.
			res.Trials = p.failed
		}
		if p.fatal != nil {
			return res, p.fatal
		}
		if p.last == nil {
			return res, nil
		}
		if progress != nil {
			progress(fmt.Sprintf("%s: trial %d of %d failed; shrinking it", spec.Name, p.failed, o.Trials))
		}
		var shrinking func(runs, steps int)
		if progress != nil {
			n := p.failed
			shrinking = func(runs, steps int) {
				progress(fmt.Sprintf("%s: shrinking trial %d: %d runs, down to %d steps so far", spec.Name, n, runs, steps))
			}
		}
		confirmed := confirm(ctx, spec, o, known, seed, p.last, p.lastRec, p.lastFs, shrinking)
		res.Counterexample, res.Record, res.Findings = confirmed.Counterexample, confirmed.Record, confirmed.Findings
		res.Replays, res.Reproduced, res.Flaky = confirmed.Replays, confirmed.Reproduced, confirmed.Flaky
		if !res.Flaky || round == flakyRounds || p.failed >= o.Trials || p.stopped != "" || ctx.Err() != nil {
			return res, nil
		}
		// Seen once and never again: the trials go on from the next one,
		// for a failure that happens again, so that whether a flaw that
		// shows only now and then counts does not hang on one trial.
		if progress != nil {
			progress(fmt.Sprintf("%s: trial %d failed once and never again on replay; the trials go on", spec.Name, p.failed))
		}
		// Fresh instances: what the trials after it find must not hang
		// on those that ran past it before it failed.
		p.closeHosts()
		from = p.failed
		p.failed, p.last, p.lastRec, p.lastFs = 0, nil, nil, nil
		p.deferred, p.defTrial, p.defRec, p.defFs = 0, nil, nil, nil
	}
}

// flakyRounds bounds the failing trials that never fail again on replay:
// the trials go on past the first two; the third ends them.
const flakyRounds = 3

// confirm shrinks a failing trial (tr, which made rec and the new
// findings fs) and replays the minimal one: the result says how often it
// failed again. When the minimal trial never does, the trial as drawn is
// replayed too, since shrinking may have dropped what made the failure
// likely (an overlap, a burst): if it fails again, it is what is reported.
// shrinking, if not nil, is told how the shrinking goes (see minimize).
func confirm(ctx context.Context, spec Spec, o Options, known []Finding, seed uint64, tr *scenarios.Trial, rec *Record, fs []Finding, shrinking func(runs, steps int)) *ScenarioResult {
	res := &ScenarioResult{Counterexample: tr, Record: rec, Findings: fs}
	minimize(ctx, spec, o, known, seed, res, shrinking)
	replayCounterexample(ctx, spec, o, known, seed, res)
	if !res.Flaky || ctx.Err() != nil {
		return res
	}
	whole := &ScenarioResult{Counterexample: tr, Record: rec, Findings: fs}
	replayCounterexample(ctx, spec, o, known, seed, whole)
	if !whole.Flaky {
		return whole
	}
	return res
}

// counterexampleReplays is how many times a minimal counterexample is run
// again, each on a fresh target, before it is reported.
const counterexampleReplays = 3

// replayCounterexample runs res's minimal counterexample again
// counterexampleReplays times and counts the runs that fail the same
// checks; none makes it flaky. Honest: a failure is reported with how
// often it happens.
func replayCounterexample(ctx context.Context, spec Spec, o Options, known []Finding, seed uint64, res *ScenarioResult) {
	want := strings.Join(findingChecks(res.Findings), ",")
	for k := range counterexampleReplays {
		if ctx.Err() != nil {
			return
		}
		rec, err := trialRun(ctx, spec, o.trialNonce(), seed^0xfeed^uint64(k)<<32, *res.Counterexample)
		if err != nil {
			continue // a replay that could not run shows nothing either way
		}
		res.Replays++
		_, again := Evaluate(rec)
		if strings.Join(findingChecks(checks.Novel(known, again)), ",") == want {
			res.Reproduced++
		}
	}
	res.Flaky = res.Replays > 0 && res.Reproduced == 0
}

// minimize shrinks a failing trial a step at a time: it drops whole steps,
// lowers the number of other keys and the length of waits (by bisection),
// then drops faults, restarts, give-ups and overlaps, keeping each change
// while the trial still fails the same checks.
//
// shrinking, if not nil, is told at least every progressEvery how many
// runs the shrinking made and how many steps the trial has left.
func minimize(ctx context.Context, spec Spec, o Options, known []Finding, seed uint64, res *ScenarioResult, shrinking func(runs, steps int)) {
	want := strings.Join(findingChecks(res.Findings), ",")
	runs, last := 0, time.Now()
	try := func(tr scenarios.Trial) bool {
		if ctx.Err() != nil || tr.Validate() != nil {
			return false
		}
		runs++
		if shrinking != nil && time.Since(last) >= progressEvery {
			last = time.Now()
			shrinking(runs, len(res.Counterexample.Steps))
		}
		rec, err := trialRun(ctx, spec, o.trialNonce(), seed^0x5eed, tr)
		if err != nil {
			return false
		}
		_, fs := Evaluate(rec)
		fs = checks.Novel(known, fs)
		if len(fs) == 0 || strings.Join(findingChecks(fs), ",") != want {
			return false
		}
		res.Counterexample, res.Record, res.Findings = &tr, rec, fs
		return true
	}
	bound := 30 * time.Second
	if o.Budget > 0 {
		bound = min(bound, max(o.Budget/2, 5*time.Second))
	}
	deadline := time.Now().Add(bound)
	for i := len(res.Counterexample.Steps) - 1; i >= 0 && time.Now().Before(deadline); i-- {
		if cand, ok := without(*res.Counterexample, i); ok {
			try(cand)
		}
	}
	// The fewest other keys, and the shortest waits, that still show it:
	// "after N other keys" then says how small the store is.
	for i := range res.Counterexample.Steps {
		for _, shrink := range []func(*scenarios.Step, int) bool{
			func(s *scenarios.Step, n int) bool { ok := n < s.Fill && n > 0; s.Fill = n; return ok },
			func(s *scenarios.Step, n int) bool {
				w := time.Duration(n) * time.Millisecond
				ok := w < s.Wait && w > 0
				s.Wait = w
				return ok
			},
		} {
			hi := res.Counterexample.Steps[i].Fill
			if res.Counterexample.Steps[i].Wait > 0 {
				hi = int(res.Counterexample.Steps[i].Wait / time.Millisecond)
			}
			lo := 1
			for lo < hi && time.Now().Before(deadline) {
				mid := lo + (hi-lo)/2
				cand := scenarios.Trial{Steps: append([]scenarios.Step(nil), res.Counterexample.Steps...)}
				if !shrink(&cand.Steps[i], mid) {
					break
				}
				if try(cand) {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
		}
	}
	for i := range res.Counterexample.Steps {
		if time.Now().After(deadline) {
			return
		}
		for _, simplify := range []func(*scenarios.Step) bool{
			func(s *scenarios.Step) bool { ok := s.Fault != ""; s.Fault = ""; return ok },
			func(s *scenarios.Step) bool { ok := s.Restart; s.Restart = false; return ok },
			func(s *scenarios.Step) bool { ok := s.GiveUp; s.GiveUp = false; return ok },
			func(s *scenarios.Step) bool { ok := s.With; s.With = false; return ok },
		} {
			cand := scenarios.Trial{Steps: append([]scenarios.Step(nil), res.Counterexample.Steps...)}
			if simplify(&cand.Steps[i]) {
				try(cand)
			}
		}
	}
}

// without returns tr with step i removed, references renumbered; ok is
// false when a later step refers to step i.
func without(tr scenarios.Trial, i int) (scenarios.Trial, bool) {
	var out scenarios.Trial
	for j, s := range tr.Steps {
		if j == i {
			continue
		}
		if j == i+1 && !tr.Steps[i].With {
			s.With = false // the group loses its first step: the next leads it
		}
		if j > i && (s.Key == scenarios.Again || s.Key == scenarios.Twin || s.Key == scenarios.Changed) {
			switch {
			case s.Of == i:
				return tr, false
			case s.Of > i:
				s.Of--
			}
		}
		out.Steps = append(out.Steps, s)
	}
	return out, len(out.Steps) > 0
}
