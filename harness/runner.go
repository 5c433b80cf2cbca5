package harness

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Verify runs every target in specs through the enabled checks and scores
// it. A target that cannot be started or tested gets an Error in its
// TargetResult; Verify itself fails only on a cancelled context.
func Verify(ctx context.Context, specs []Spec, opts ...Option) (*Result, error) {
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	o.fill()
	if o.Shards > 1 && (o.Shard < 1 || o.Shard > o.Shards) {
		return nil, fmt.Errorf("shard %d/%d: expected 1 ≤ i ≤ n", o.Shard, o.Shards)
	}
	for _, id := range o.Checks {
		if !KnownCheck(id) {
			return nil, fmt.Errorf("unknown check %q", id)
		}
	}
	res := &Result{Schema: ResultSchema, Seed: o.Seed, Nonce: o.Nonce, Started: time.Now().UTC()}
	if o.Shards > 1 {
		res.Meta.Shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	res.Targets = make([]TargetResult, len(specs))
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
			res.Targets[i] = runTarget(ctx, spec, o, func(line string) { progress("%s", line) })
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
		return res, err
	}
	return res, nil
}

// targetSeed derives a target's seed from the run's, so that adding a
// target does not change what another one sees.
func targetSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return seed ^ h.Sum64()
}

func runTarget(ctx context.Context, spec Spec, o Options, progress func(string)) (tr TargetResult) {
	start := time.Now()
	defer func() {
		tr.Duration = time.Since(start)
		if p := recover(); p != nil {
			tr.Error = fmt.Sprintf("internal error while testing %s: %v", spec.Name, p)
		}
	}()
	o = o.forTarget(spec)
	tr, sp := probeTarget(ctx, spec, o)
	if tr.Error != "" || tr.Record == nil {
		return tr
	}
	if msg := untestable(tr.Record); msg != "" {
		// No trial can tell more about a target the probes could not test.
		tr.Error = msg + keyFormatHint(tr.Record, spec.KeyFormat)
		return tr
	}
	// Generated trials run once per run: in the first shard of a split one.
	if (o.Trials > 0 || len(o.Replay) > 0) && o.Shard <= 1 {
		_, known := Evaluate(tr.Record)
		o.trialPace = trialPace(tr.Record)
		sc, err := runScenarios(ctx, spec, o, known, sp, targetSeed(o.Seed, spec.Name), progress)
		tr.Scenario = sc
		if err != nil {
			if ctx.Err() != nil {
				tr.Error = "interrupted: " + ctx.Err().Error()
			} else {
				tr.Error = "generated trials: " + err.Error()
			}
			return tr
		}
	}
	Score(&tr)
	return tr
}

// probeTarget starts the target and its fakes, runs the fixed probes, and
// stops everything it started. It also says what trials may contain.
func probeTarget(ctx context.Context, spec Spec, o Options) (tr TargetResult, sp scenarios.Space) {
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
	for k, p := range planProbesWith(registry, info, enabled, r.opts.Faults, r.supports, r.opts.Burst, r.opts.Bursts, r.opts.LateOptions) {
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
		}
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

// probeRun is a probe being run: the intents its steps made so far.
type probeRun struct {
	p     Probe
	first int
	// made are the steps' intents (as they were when made), at their
	// indices in the record.
	made []*Intent
	at   []int
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

// runProbe runs the steps of p, its tail excepted, and returns the probe
// run when a tail (Probe.Tail) is left to run after the other probes.
func (r *runner) runProbe(info TargetInfo, p Probe, firstID int) *probeRun {
	pr := &probeRun{p: p, first: firstID, made: make([]*Intent, 0, len(p.Steps)), at: make([]int, 0, len(p.Steps))}
	tail := min(max(p.Tail, 0), len(p.Steps))
	r.runSteps(info, pr, 0, len(p.Steps)-tail)
	if p.Reversed {
		r.deliverReversed(len(r.rec.Intents)-len(p.Steps), p.Steps)
	}
	if tail > 0 {
		return pr
	}
	return nil
}

// runSteps runs the steps from, to of a probe.
func (r *runner) runSteps(info TargetInfo, pr *probeRun, from, to int) {
	p := pr.p
	for i := from; i < to; i++ {
		s := p.Steps[i]
		if r.ctx.Err() != nil || r.fatal != nil {
			return
		}
		if s.Again && s.KeyFrom >= 0 && s.KeyFrom < len(pr.at) {
			// Another attempt at an earlier step's intent (by index: the
			// pointers in made may point at an older copy of the slice).
			in := &r.rec.Intents[pr.at[s.KeyFrom]]
			pr.made, pr.at = append(pr.made, in), append(pr.at, pr.at[s.KeyFrom])
			if ok := in.FirstOK(); ok != nil && r.waitUntil(ok.End.Add(s.WaitSince)) {
				in.Waited = max(in.Waited, s.WaitSince)
				r.attempt(in, s.Fault, false)
			}
			continue
		}
		if j := r.fillerRun(p.Steps, i, to); j > i+1 {
			r.runFillers(info, pr, i, j)
			i = j - 1
			continue
		}
		op, _ := info.Operation(s.Op)
		in := Intent{
			ID:        pr.first + i,
			Operation: s.Op,
			Mutating:  op.Mutating,
			Role:      s.Role,
			Probe:     p.Name,
			Marker:    r.newMarker(),
			Caller:    s.Caller,
		}
		switch {
		case s.NoKey:
		case s.KeyFrom >= 0:
			in.Key = pr.made[s.KeyFrom].Key
			in.Related = pr.made[s.KeyFrom].ID
		default:
			in.Key = r.newKey()
		}
		if s.InputsFrom >= 0 {
			in.Inputs = copyMap(pr.made[s.InputsFrom].Inputs)
			in.Related = pr.made[s.InputsFrom].ID
			if s.Change {
				r.changeInput(op, in.Inputs)
			}
		} else {
			in.Inputs = r.genInputs(op)
		}
		if p.Reversed {
			r.rec.Intents = append(r.rec.Intents, in) // attempted below, together
		} else {
			r.attemptAll(&in, s)
			r.rec.Intents = append(r.rec.Intents, in)
		}
		pr.made = append(pr.made, &r.rec.Intents[len(r.rec.Intents)-1])
		pr.at = append(pr.at, len(r.rec.Intents)-1)
	}
}

// fillerWorkers bounds the filler intents attempted at once.
const fillerWorkers = 8

// isFiller says whether s makes a plain filler intent: a fresh key, one
// attempt, nothing else.
func isFiller(s Step) bool {
	return s.Role == RoleFiller && s.KeyFrom < 0 && s.InputsFrom < 0 && !s.NoKey && !s.DryRun && s.Fault == nil &&
		s.Repeat <= 1 && !s.UntilOK && s.Burst <= 1 && !s.BadSignature && !s.Again && s.WaitSince == 0
}

// fillerRun returns the end of the run of filler steps from i (before
// to), when the target takes concurrent calls (a Burster): they are then
// attempted together (runFillers); i itself otherwise.
func (r *runner) fillerRun(steps []Step, i, to int) int {
	if _, ok := r.target.(Burster); !ok || !isFiller(steps[i]) {
		return i
	}
	j := i
	for j < to && isFiller(steps[j]) {
		j++
	}
	return j
}

// runFillers makes the intents of the filler steps from, to (their keys,
// markers and inputs drawn in order, as one at a time would) and attempts
// them fillerWorkers at a time: they only have to reach the target before
// whatever comes next, and a slow target (a process per call) would
// otherwise spend most of a run on them.
func (r *runner) runFillers(info TargetInfo, pr *probeRun, from, to int) {
	base := len(r.rec.Intents)
	for i := from; i < to; i++ {
		s := pr.p.Steps[i]
		op, _ := info.Operation(s.Op)
		in := Intent{ID: pr.first + i, Operation: s.Op, Mutating: op.Mutating, Role: s.Role, Probe: pr.p.Name, Marker: r.newMarker()}
		in.Key = r.newKey()
		in.Inputs = r.genInputs(op)
		r.rec.Intents = append(r.rec.Intents, in)
	}
	ins := r.rec.Intents[base:]
	work := make(chan *Intent)
	var wg sync.WaitGroup
	for w := 0; w < fillerWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range work {
				id := fmt.Sprintf("%s-%d-1", r.env.RunID[:8], in.ID)
				a := Attempt{N: 1, ID: id, LedgerBefore: r.ledger.LastSeq(), Start: time.Now()}
				a.Reply = r.target.Call(r.ctx, Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs})
				a.End, a.LedgerAfter = time.Now(), r.ledger.LastSeq()
				in.Attempts = append(in.Attempts, a)
			}
		}()
	}
	for k := range ins {
		if r.ctx.Err() != nil {
			break
		}
		work <- &ins[k]
	}
	close(work)
	wg.Wait()
	for k := range ins {
		if len(ins[k].Attempts) > 0 && r.observe(ins[k].Marker) {
			ins[k].Attempts[0].LedgerAfter = r.ledger.LastSeq()
		}
	}
	for k := range ins {
		pr.made = append(pr.made, &r.rec.Intents[base+k])
		pr.at = append(pr.at, base+k)
	}
}

// waitUntil waits on a timer until t, and reports false if the run ended
// first.
func (r *runner) waitUntil(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return r.ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// deliverReversed sends the first attempts of the intents from index first
// on newest first, in one go, then retries each until done.
func (r *runner) deliverReversed(first int, steps []Step) {
	ro, ok := r.target.(Reorderer)
	if !ok {
		return
	}
	ins := r.rec.Intents[first:]
	calls := make([]Call, len(ins))
	for i := range ins {
		calls[i] = Call{ID: fmt.Sprintf("%s-%d-1", r.env.RunID[:8], ins[i].ID), Operation: ins[i].Operation,
			Key: ins[i].Key, Marker: ins[i].Marker, Inputs: ins[i].Inputs}
	}
	before := r.ledger.LastSeq()
	start := time.Now()
	replies := ro.OutOfOrder(r.ctx, calls)
	for i := range ins {
		r.observe(ins[i].Marker)
	}
	end, after := time.Now(), r.ledger.LastSeq()
	for i := range ins {
		a := Attempt{N: 1, ID: calls[i].ID, Start: start, End: end, LedgerBefore: before, LedgerAfter: after}
		if i < len(replies) {
			a.Reply = replies[i]
		} else {
			a.Reply = Reply{Outcome: Info, Error: "no reply from the reordered delivery"}
		}
		ins[i].Attempts = append(ins[i].Attempts, a)
	}
	for i := range ins {
		if steps[i].UntilOK {
			r.retryUntilOK(&ins[i], false)
		}
	}
}

func (r *runner) attemptAll(in *Intent, s Step) {
	n := s.Repeat
	if n < 1 {
		n = 1
	}
	if s.Burst > 1 {
		r.burst(in, s.Burst)
		n = 0
	}
	if s.BadSignature {
		r.forged(in)
		n = 0
	}
	for i := 0; i < n && r.ctx.Err() == nil && r.fatal == nil; i++ {
		var f faults.Fault
		if i == 0 {
			f = s.Fault
		}
		r.attempt(in, f, s.DryRun)
	}
	if !s.UntilOK {
		return
	}
	r.retryUntilOK(in, s.DryRun)
}

// retryUntilOK retries like a careful client: with the same key, while the
// reply says it may, at most MaxAttempts times for failures (backing off
// from the second retry on), and waiting out "in progress" answers (409,
// 425, 429) for at most StuckWait.
func (r *runner) retryUntilOK(in *Intent, dryRun bool) {
	if len(in.Attempts) == 0 {
		r.attempt(in, nil, dryRun)
	}
	deadline := time.Now().Add(r.opts.StuckWait)
	failures, waits := 0, 0
	for r.ctx.Err() == nil && r.fatal == nil && len(in.Attempts) < maxAttemptsPerIntent {
		last := in.Attempts[len(in.Attempts)-1]
		if last.Outcome == OK || !retryable(last.Reply) {
			return
		}
		var wait time.Duration
		if busy(last.Status) {
			if time.Now().After(deadline) {
				return
			}
			wait = min(r.opts.Backoff<<min(waits, 5), 250*time.Millisecond)
			waits++
		} else {
			failures++
			if failures >= r.opts.MaxAttempts {
				return
			}
			// The retry right after a failure goes at once (it may
			// meet the first call still in flight, which is worth
			// seeing); later ones back off, as a careful client's do:
			// a target that is still recovering from the failure (its
			// own downstream call not yet given up) is not called
			// "never succeeded" for retries a few milliseconds apart.
			if failures > 1 {
				wait = min(r.opts.Backoff<<min(failures-2, 5), 250*time.Millisecond)
			}
		}
		if wait > 0 && !r.waitUntil(time.Now().Add(wait)) {
			return
		}
		r.attempt(in, nil, dryRun)
	}
}

// maxAttemptsPerIntent is a hard bound on one intent's attempts.
const maxAttemptsPerIntent = 200

func busy(status int) bool { return status == 409 || status == 425 || status == 429 }

// retryable says whether a client that follows the usual conventions would
// retry with the same key.
func retryable(rep Reply) bool {
	if rep.Outcome == Info || !rep.Forwarded {
		return true
	}
	switch rep.Status {
	case 408, 409, 425, 429, 500, 502, 503, 504:
		return true
	}
	return false
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

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
