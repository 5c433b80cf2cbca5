package harness

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Verify runs every target in specs through the enabled checks and scores
// it. A target that cannot be started or tested gets an Error in its
// TargetResult; Verify itself fails only on a cancelled context.
func Verify(ctx context.Context, specs []Spec, opts ...Option) (*Result, error) {
	res, _, err := verify(ctx, specs, opts)
	return res, err
}

// verify is Verify, and says for each target whether its Error is the
// generated trials' (a trial could not run), the probes' record being
// whole: Check reports the two apart.
func verify(ctx context.Context, specs []Spec, opts []Option) (*Result, []bool, error) {
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	o.fill()
	if o.Shards > 1 && (o.Shard < 1 || o.Shard > o.Shards) {
		return nil, nil, fmt.Errorf("shard %d/%d: expected 1 ≤ i ≤ n", o.Shard, o.Shards)
	}
	for _, id := range o.Checks {
		if !KnownCheck(id) {
			return nil, nil, fmt.Errorf("unknown check %q", id)
		}
	}
	res := &Result{Schema: ResultSchema, Seed: o.Seed, Nonce: o.Nonce, Started: time.Now().UTC()}
	if o.Shards > 1 {
		res.Meta.Shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	res.Targets = make([]TargetResult, len(specs))
	trialsFailed := make([]bool, len(specs))
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	var progMu sync.Mutex
	progress := func(format string, args ...any) {
		if o.Progress == nil {
			return
		}
		progMu.Lock()
		fmt.Fprintf(o.Progress, format+"\n", args...)
		progMu.Unlock()
	}
	for i, spec := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				res.Targets[i] = TargetResult{Name: spec.Name, Kind: spec.Kind, Error: "not run: " + ctx.Err().Error()}
				return
			}
			defer func() { <-sem }()
			progress("%s: started", spec.Name)
			res.Targets[i], trialsFailed[i] = runTarget(ctx, spec, o, func(line string) { progress("%s", line) })
			tr := &res.Targets[i]
			if tr.Error != "" {
				progress("%s: could not be tested: %s", spec.Name, tr.Error)
			} else {
				progress("%s: score %d, %d findings (%s)", spec.Name, tr.Score.Level, len(tr.Findings), tr.Duration.Round(time.Millisecond))
			}
		}()
	}
	wg.Wait()
	res.Duration = time.Since(res.Started)
	if err := ctx.Err(); err != nil {
		return res, trialsFailed, err
	}
	return res, trialsFailed, nil
}

// targetSeed derives a target's seed from the run's, so that adding a
// target does not change what another one sees.
func targetSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return seed ^ h.Sum64()
}

func runTarget(ctx context.Context, spec Spec, o Options, progress func(string)) (tr TargetResult, trialsFailed bool) {
	start := time.Now()
	var early *earlyTrials
	defer func() {
		tr.Duration = time.Since(start)
		if p := recover(); p != nil {
			tr.Error = fmt.Sprintf("internal error while testing %s: %v", spec.Name, p)
			early.abandon() // nothing outlives the target's run
		}
	}()
	o = o.forTarget(spec)
	// Generated trials run once per run: in the first shard of a split one.
	wantTrials := (o.Trials > 0 || len(o.Replay) > 0) && o.Shard <= 1
	var onTails func(*Record, map[string]bool, scenarios.Space)
	if wantTrials && spec.Isolated {
		// The trials start on an instance of their own as soon as the
		// probes are done but their tails (the late retries, which
		// mostly wait): the run takes the longer of the two, not both.
		onTails = func(partial *Record, pending map[string]bool, sp scenarios.Space) {
			if checks.Untestable(partial) != "" {
				return
			}
			early = startEarlyTrials(ctx, spec, o, partial, pending, sp, progress)
		}
	}
	tr, sp := probeTarget(ctx, spec, o, onTails)
	if tr.Error != "" || tr.Record == nil {
		early.abandon()
		return tr, false
	}
	if msg := checks.Untestable(tr.Record); msg != "" {
		// No trial can tell more about a target the probes could not test.
		early.abandon()
		tr.Error = msg + keyFormatHint(tr.Record, spec.KeyFormat)
		return tr, false
	}
	if wantTrials {
		_, known := Evaluate(tr.Record)
		var sc *ScenarioResult
		var err error
		if early != nil {
			sc, err = early.finish(known)
		} else {
			o.trialPace = trialPace(tr.Record)
			sc, err = runScenarios(ctx, spec, o, known, nil, sp, targetSeed(o.Seed, spec.Name), progress)
		}
		tr.Scenario = sc
		if err != nil {
			if ctx.Err() != nil {
				tr.Error = "interrupted: " + ctx.Err().Error()
			} else {
				tr.Error = "generated trials: " + err.Error()
				trialsFailed = true
			}
			return tr, trialsFailed
		}
	}
	Score(&tr)
	return tr, false
}

// earlyTrials are generated trials started before the probes' tails were
// done (see runTarget): they judge what the probes found so far, and
// learn the rest when the probes are done.
type earlyTrials struct {
	cancel context.CancelFunc
	// ended is set once finish or abandon has run.
	ended bool
	// known receives the findings of all the probes, or is closed
	// when the probes could not be done.
	known chan []Finding
	done  chan struct{}
	sc    *ScenarioResult
	err   error
}

// startEarlyTrials starts spec's generated trials on an instance of their
// own, beside the probes' tails: partial is the probes' record but for
// the tails, whose checks (pending) are judged once the probes are done.
func startEarlyTrials(ctx context.Context, spec Spec, o Options, partial *Record, pending map[string]bool, sp scenarios.Space, progress func(string)) *earlyTrials {
	tctx, cancel := context.WithCancel(ctx)
	e := &earlyTrials{cancel: cancel, known: make(chan []Finding, 1), done: make(chan struct{})}
	_, known := Evaluate(partial)
	o.trialPace = trialPace(partial)
	pf := &probeFindings{pending: pending, full: e.known}
	go func() {
		defer close(e.done)
		defer func() {
			if x := recover(); x != nil {
				e.err = fmt.Errorf("internal error while running trials against %s: %v", spec.Name, x)
			}
		}()
		e.sc, e.err = runScenarios(tctx, spec, o, known, pf, sp, targetSeed(o.Seed, spec.Name), progress)
	}()
	return e
}

// finish gives the trials every probe's findings, and returns what they
// showed once they are done.
func (e *earlyTrials) finish(known []Finding) (*ScenarioResult, error) {
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

// probeTarget starts the target and its fakes, runs the fixed probes, and
// stops everything it started. It also says what trials may contain.
//
// onTails, if not nil, is called once the probes but their tails have run
// (and only then, only if the probes have tails), with the record so far,
// the checks the tails serve, and what trials may contain.
func probeTarget(ctx context.Context, spec Spec, o Options, onTails func(partial *Record, pending map[string]bool, sp scenarios.Space)) (tr TargetResult, sp scenarios.Space) {
	tr = TargetResult{Name: spec.Name, Kind: spec.Kind}
	ledger := fakes.NewLedger()
	stateDir, err := os.MkdirTemp("", "idemcheck-"+strings.NewReplacer("/", "_", string(os.PathSeparator), "_").Replace(spec.Name)+"-")
	if err != nil {
		tr.Error = "cannot make a state directory: " + err.Error()
		return tr, sp
	}
	defer os.RemoveAll(stateDir)
	seed := targetSeed(o.Seed, spec.Name)
	env := &Env{Fakes: map[string]fakes.Fake{}, Ledger: ledger, StateDir: stateDir, RunID: fmt.Sprintf("%016x", seed^uint64(time.Now().UnixNano()))}
	defer func() {
		for _, f := range env.Fakes {
			_ = f.Close()
		}
	}()
	for _, start := range spec.Fakes {
		f, err := start(ctx, ledger)
		if err != nil {
			tr.Error = "cannot start a fake: " + err.Error()
			return tr, sp
		}
		env.Fakes[f.Name()] = f
	}
	target, err := spec.Start(ctx, env)
	if err != nil {
		tr.Error = err.Error()
		return tr, sp
	}
	defer func() {
		if err := target.Close(); err != nil && tr.Error == "" {
			tr.Error = "stopping the target: " + err.Error()
		}
	}()

	obs, closeObs, err := startObservers(ctx, spec, env, target)
	if err != nil {
		tr.Error = err.Error()
		return tr, sp
	}
	defer closeObs()
	r := &runner{ctx: ctx, opts: o, target: target, env: env, ledger: ledger, seed: seed, observers: obs, keyFormat: spec.KeyFormat}
	if onTails != nil {
		r.beforeTails = func(partial *Record, pending map[string]bool) {
			onTails(partial, pending, space(partial.Target, o.Faults, r.supports, o.Burst))
		}
	}
	rec := r.run()
	rec.Ledger = ledger.Effects()
	tr.Record = rec
	if r.fatal != nil {
		tr.Error = r.fatal.Error()
		return tr, sp
	}
	if err := ctx.Err(); err != nil {
		tr.Error = "interrupted: " + err.Error()
		return tr, sp
	}
	sp = space(rec.Target, o.Faults, r.supports, o.Burst)
	return tr, sp
}

type runner struct {
	// fatal stops the run: the target could not be restarted.
	fatal  error
	ctx    context.Context
	opts   Options
	target Target
	env    *Env
	ledger *fakes.Ledger
	seed   uint64
	rng    *rand.Rand
	rec    *Record
	// observers count effects in the target's own data (observe.go).
	observers []EffectObserver

	// Silence: unfaulted attempts without a reply, until one has one.
	answered  bool
	silent    int
	silentFor time.Duration

	// keyFormat shapes the keys; the run's nonce (opts.Nonce) makes them
	// its own.
	keyFormat keys.Format

	// beforeTails, if set, is called once the probes but their tails
	// (Probe.Tail) have run, with a copy of the record so far and the
	// checks the tails serve: what those checks find is not known yet.
	beforeTails func(partial *Record, pending map[string]bool)
}

// snapshot returns a copy of the record so far, with the ledger's effects,
// that the run goes on without touching: its intents in plan order.
func (r *runner) snapshot() *Record {
	rec := *r.rec
	rec.Intents = make([]Intent, len(r.rec.Intents))
	for i, in := range r.rec.Intents {
		in.Attempts = slices.Clone(in.Attempts)
		in.Inputs = copyMap(in.Inputs)
		rec.Intents[i] = in
	}
	sort.SliceStable(rec.Intents, func(i, j int) bool { return rec.Intents[i].ID < rec.Intents[j].ID })
	rec.Ledger = r.ledger.Effects()
	return &rec
}

// newKey makes the next idempotency key. It draws one number from the
// seeded stream, whatever the format, so every later choice is the same
// for every format and nonce.
func (r *runner) newKey() string { return r.keyFormat.Make(r.rng.Uint64(), r.opts.Nonce) }

// newMarker makes the next intent marker, drawing one number as newKey
// does.
func (r *runner) newMarker() string { return keys.Marker(r.rng.Uint64(), r.opts.Nonce) }

func (r *runner) run() *Record {
	info := r.target.Info()
	enabled := map[string]bool{}
	for _, id := range r.opts.Checks {
		enabled[id] = true
	}
	r.rec = &Record{Target: info, Seed: r.opts.Seed, Checks: append([]string(nil), r.opts.Checks...)}
	if r.opts.Shards > 1 {
		r.rec.Shard = fmt.Sprintf("%d/%d", r.opts.Shard, r.opts.Shards)
	}
	for _, f := range r.opts.Faults {
		r.rec.Faults = append(r.rec.Faults, f.Name())
		if why := r.unsupported(f); why != "" {
			r.rec.Unsupported = append(r.rec.Unsupported, f.Name())
			if r.rec.UnsupportedWhy == nil {
				r.rec.UnsupportedWhy = map[string]string{}
			}
			r.rec.UnsupportedWhy[f.Name()] = why
		}
	}
	info.Capabilities = r.capabilities(info)
	r.rec.Target = info
	// Every probe has its own random stream, keyed by what it is (not by
	// where it is in the plan), and its own intent numbers, so a shard, or a
	// run of fewer checks, makes exactly the intents the whole run would
	// have made for those probes.
	nextID := 1
	var tails []*probeRun
	pending := map[string]bool{} // the checks the tails serve
	plan := checks.Planner{Enabled: enabled, Faults: r.opts.Faults, Supports: r.supports, Burst: r.opts.Burst, Bursts: r.opts.Bursts, Late: r.opts.LateOptions}
	for k, p := range plan.Plan(info) {
		first := nextID
		nextID += len(p.Steps)
		if r.ctx.Err() != nil || r.fatal != nil {
			break
		}
		if r.opts.Shards > 1 && k%r.opts.Shards != r.opts.Shard-1 {
			continue
		}
		r.rng = rand.New(rand.NewPCG(r.seed, probeStream(p.Probe)))
		if pr := r.runProbe(info, p.Probe, first); pr != nil {
			tails = append(tails, pr)
			for _, id := range p.Serves {
				pending[id] = true
			}
		}
	}
	if len(tails) > 0 && r.beforeTails != nil && r.ctx.Err() == nil && r.fatal == nil {
		r.beforeTails(r.snapshot(), pending)
	}
	// The tails of the probes that asked to finish last: the time the other
	// probes took counts towards their waits.
	for _, pr := range tails {
		if r.ctx.Err() != nil || r.fatal != nil {
			break
		}
		r.rng = rand.New(rand.NewPCG(r.seed, probeStream(pr.p)^0x7a11))
		r.runSteps(info, pr, len(pr.p.Steps)-pr.p.Tail, len(pr.p.Steps))
	}
	if len(tails) > 0 {
		// The record lists intents in plan order, as a shard's does, and
		// as Merge puts them back together.
		sort.SliceStable(r.rec.Intents, func(i, j int) bool { return r.rec.Intents[i].ID < r.rec.Intents[j].ID })
	}
	return r.rec
}

// capabilities are what the target declares in info, with the abilities
// its interfaces show filled in.
func (r *runner) capabilities(info TargetInfo) *Capabilities {
	caps := info.Caps()
	_, caps.Burst = r.target.(Burster)
	_, caps.Signatures = r.target.(Signer)
	_, caps.Reorder = r.target.(Reorderer)
	caps.Restart = r.canCrash()
	return &caps
}

// canCrash says whether the harness can kill and restart the target.
func (r *runner) canCrash() bool {
	_, ok := r.target.(Crasher)
	return ok && r.target.Supports(&faults.Crash{Point: faults.AfterEffect})
}

// supports says whether f can be injected into the target: crash faults
// also need a target the harness can kill and restart.
func (r *runner) supports(f faults.Fault) bool { return r.unsupported(f) == "" }

// unsupported says why f cannot be injected into the target, or "" when
// it can.
func (r *runner) unsupported(f faults.Fault) string {
	if r.observedOnly() && needsFake(f) {
		return "the target's effects are counted only by observers: no fake sees the downstream call this fault acts on"
	}
	_, crash := f.(faults.CrashFault)
	if _, ok := r.target.(Crasher); crash && !ok {
		return "this kind of target cannot be killed and restarted"
	}
	if r.target.Supports(f) {
		return ""
	}
	if e, ok := r.target.(FaultExplainer); ok {
		if why := e.WhyUnsupported(f); why != "" {
			return why
		}
	}
	if crash {
		return "idemcheck did not start the target, so it cannot kill it"
	}
	return "the adapter cannot inject this fault"
}

// FaultExplainer is a Target that says why it cannot take a fault (a
// remote target takes only what a client can do); the report gives the
// reason beside the fault.
type FaultExplainer interface {
	// WhyUnsupported says why f cannot be injected ("" for no reason
	// worth more than the harness's own).
	WhyUnsupported(f faults.Fault) string
}

func (r *runner) attempt(in *Intent, f faults.Fault, dryRun bool) {
	n := len(in.Attempts) + 1
	id := fmt.Sprintf("%s-%d-%d", r.env.RunID[:8], in.ID, n)
	a := Attempt{N: n, ID: id, DryRun: dryRun}
	call := Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs, DryRun: dryRun, Fault: f, Caller: in.Caller}
	if f != nil {
		a.Fault = f.Name()
		a.FaultClass = string(faults.ClassOf(f))
	}
	var crashed atomic.Bool
	kill := func() {
		if crashed.CompareAndSwap(false, true) {
			_ = r.target.(Crasher).Kill()
		}
	}
	ctx := r.ctx
	var reached atomic.Bool // a client-disconnect attempt's call reached the downstream
	switch x := f.(type) {
	case faults.DisconnectFault:
		// The client leaves when the target's downstream call reaches a
		// fake; the fake goes on once the proxy's request to the target
		// has been cancelled (bounded), so the target has seen it.
		actx, leave := context.WithCancel(r.ctx)
		defer leave()
		ctx = actx
		gone := make(chan struct{})
		call.Fault = faults.NotifyForwarded(x, gone)
		// Then it waits (bounded) for the target to give up its own call,
		// as a target that passes its request's context downstream does:
		// the effect is recorded after that, whichever way the target
		// goes, so the same target shows the same outcome every try.
		grace := disconnectGrace
		if r.opts.trialPace > 0 {
			grace = min(grace, r.opts.trialPace)
		}
		rule := fakes.Rule{Marker: in.Marker, Times: 1, Action: fakes.AwaitCaller, Delay: grace, OnMatch: func() {
			reached.Store(true)
			leave()
			select {
			case <-gone:
			case <-time.After(disconnectWait):
			case <-r.ctx.Done():
			}
		}}
		for _, fk := range r.env.Fakes {
			fk.Arm(rule)
		}
		defer r.disarm(in.Marker)
	case faults.CrashFault:
		switch x.CrashPoint() {
		case faults.BeforeEffect:
			rule := fakes.Rule{Marker: in.Marker, Times: 1, Action: fakes.FailBefore, OnMatch: kill}
			for _, fk := range r.env.Fakes {
				fk.Arm(rule)
			}
			defer r.disarm(in.Marker)
		case faults.AfterEffect:
			cancel := r.ledger.Observe(func(e fakes.Effect) {
				if e.HasMarker(in.Marker) {
					kill()
				}
			})
			defer cancel()
		case faults.AfterReply:
			call.Fault = faults.KillAfterReply(f.Name(), kill)
		}
	case faults.DownstreamFault:
		for _, fk := range r.env.Fakes {
			fk.Arm(x.Rule(in.Marker))
		}
		defer r.disarm(in.Marker)
	}
	a.LedgerBefore = r.ledger.LastSeq()
	a.Start = time.Now()
	a.Reply = r.target.Call(ctx, call)
	if reached.Load() {
		// The client left, but the target had the request: its work may
		// still land after this attempt, in a later one's window.
		a.Reply.Forwarded = true
	}
	a.End = time.Now()
	a.LedgerAfter = r.ledger.LastSeq()
	if crashed.Load() {
		a.Crashed = true
		if err := r.target.(Crasher).Restart(r.ctx); err != nil && r.ctx.Err() == nil {
			r.fatal = fmt.Errorf("restarting the target after %s: %w", f.Name(), err)
		}
	}
	if r.observe(in.Marker) {
		a.LedgerAfter = r.ledger.LastSeq() // after a crash, read once restarted
	}
	in.Attempts = append(in.Attempts, a)
	r.noteSilence(a)
}

// silentLimit is how many attempts in a row, from the first, may end with
// no reply at all before the target is declared untestable: a target that
// accepts connections and never answers would otherwise cost every probe
// its full timeout (minutes), for nothing.
const silentLimit = 3

// noteSilence counts the unfaulted attempts that got no reply, until one
// gets any; at silentLimit the run of the target stops (r.fatal), saying
// how long it waited.
func (r *runner) noteSilence(a Attempt) {
	if r.answered || a.Fault != "" || r.fatal != nil || r.ctx.Err() != nil {
		return
	}
	// Any status, any bytes of a reply or of a program's output, or no
	// error at all is an answer: only an attempt that ended in an error
	// with nothing received is silence.
	if a.Status != 0 || a.Error == "" || a.Body != "" || a.Stderr != "" || a.ExitSignal != "" {
		r.answered = true
		return
	}
	r.silent++
	r.silentFor += a.End.Sub(a.Start)
	if r.silent >= silentLimit {
		r.fatal = fmt.Errorf("the target never answered: %d attempts in a row got no reply, %s of waiting in all (last: %s); check that it is healthy, or raise its timeout if it is just slow",
			r.silent, r.silentFor.Round(time.Millisecond), a.Error)
	}
}

// disconnectWait bounds how long a fake holds the downstream call of a
// client-disconnect attempt for the proxy to cancel its request to the
// target; disconnectGrace how long it then waits for the target to cancel
// its downstream call in turn.
const (
	disconnectWait  = 2 * time.Second
	disconnectGrace = 250 * time.Millisecond
)

// disarm removes the rules armed for marker from every fake.
func (r *runner) disarm(marker string) {
	for _, fk := range r.env.Fakes {
		fk.DisarmMarker(marker)
	}
}

// forged sends the intent's call with a wrong signature, once.
func (r *runner) forged(in *Intent) {
	sg, ok := r.target.(Signer)
	if !ok {
		return
	}
	id := fmt.Sprintf("%s-%d-%d", r.env.RunID[:8], in.ID, len(in.Attempts)+1)
	a := Attempt{N: len(in.Attempts) + 1, ID: id, Fault: "bad-signature", LedgerBefore: r.ledger.LastSeq(), Start: time.Now()}
	a.Reply = sg.BadSignature(r.ctx, Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs})
	a.End = time.Now()
	r.observe(in.Marker)
	a.LedgerAfter = r.ledger.LastSeq()
	in.Attempts = append(in.Attempts, a)
}

// burst sends n copies of the intent's call at once.
func (r *runner) burst(in *Intent, n int) {
	b := r.target.(Burster)
	base := len(in.Attempts)
	before := r.ledger.LastSeq()
	start := time.Now()
	call := Call{ID: fmt.Sprintf("%s-%d-burst", r.env.RunID[:8], in.ID), Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs, Caller: in.Caller}
	replies := b.Burst(r.ctx, call, n)
	end := time.Now()
	r.observe(in.Marker)
	after := r.ledger.LastSeq()
	for i, rep := range replies {
		in.Attempts = append(in.Attempts, Attempt{
			N: base + i + 1, ID: fmt.Sprintf("%s-%d", call.ID, i+1), Burst: true,
			Start: start, End: end, LedgerBefore: before, LedgerAfter: after, Reply: rep,
		})
	}
}

func (r *runner) genInputs(op Operation) map[string]string {
	out := map[string]string{}
	for _, name := range sortedInputNames(op) {
		out[name] = genValue(r.rng, op.Inputs[name])
	}
	return out
}

// changeInput alters the first input (by name) to another value.
func (r *runner) changeInput(op Operation, vals map[string]string) {
	names := sortedInputNames(op)
	if len(names) == 0 {
		return
	}
	name := names[0]
	old := vals[name]
	for i := 0; i < 64; i++ {
		if v := genValue(r.rng, op.Inputs[name]); v != old {
			vals[name] = v
			return
		}
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"

func genValue(rng *rand.Rand, in Input) string {
	switch in.Kind {
	case "int":
		if in.Max <= in.Min {
			return fmt.Sprint(in.Min)
		}
		return fmt.Sprint(in.Min + rng.IntN(in.Max-in.Min+1))
	case "choice":
		if len(in.Choices) == 0 {
			return ""
		}
		return in.Choices[rng.IntN(len(in.Choices))]
	default:
		n := in.Length
		if n <= 0 {
			n = 8
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return in.Prefix + string(b)
	}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ErrNoTargets is returned when there is nothing to run.
var ErrNoTargets = errors.New("no targets")

// probeStream derives a probe's random stream from its name and the
// operations it uses.
func probeStream(p Probe) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(p.Name))
	for _, s := range p.Steps {
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(s.Op))
	}
	return h.Sum64()
}
