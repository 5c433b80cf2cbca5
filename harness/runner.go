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
	res := &Result{Schema: ResultSchema, Seed: o.Seed, Started: time.Now().UTC()}
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
	tr, sp := probeTarget(ctx, spec, o)
	if tr.Error != "" || tr.Record == nil {
		return tr
	}
	if msg := untestable(tr.Record); msg != "" {
		tr.Error = msg // no trial can tell more about a target the probes could not test
		return tr
	}
	// Generated trials run once per run: in the first shard of a split one.
	if (o.Trials > 0 || len(o.Replay) > 0) && o.Shard <= 1 {
		sc, err := runScenarios(ctx, spec, o, tr.Record.Target, sp, targetSeed(o.Seed, spec.Name), progress)
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

	r := &runner{ctx: ctx, opts: o, target: target, env: env, ledger: ledger, seed: seed}
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
	rec.CanCrash = r.canCrash()
	burst := 0
	if _, rec.CanBurst = target.(Burster); rec.CanBurst {
		burst = o.Burst
	}
	sp = space(rec.Target, o.Faults, r.supports, rec.CanCrash, burst)
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
}

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
		if !r.supports(f) {
			r.rec.Unsupported = append(r.rec.Unsupported, f.Name())
		}
	}
	burst := 0
	if _, ok := r.target.(Burster); ok {
		burst = r.opts.Burst
	}
	_, signer := r.target.(Signer)
	_, reorderer := r.target.(Reorderer)
	// Signatures and event order are conventions of webhook senders; a
	// target that has none cannot be held to them.
	if !signer {
		info.NotApplicable = union(info.NotApplicable, []string{CheckWebhookSignature})
	}
	if !reorderer {
		info.NotApplicable = union(info.NotApplicable, []string{CheckWebhookOrder})
	}
	r.rec.Target = info
	// Every probe has its own random stream, keyed by what it is (not by
	// where it is in the plan), and its own intent numbers, so a shard, or a
	// run of fewer checks, makes exactly the intents the whole run would
	// have made for those probes.
	nextID := 1
	for k, p := range planProbes(info, enabled, r.opts.Faults, r.supports, burst, signer, reorderer) {
		first := nextID
		nextID += len(p.steps)
		if r.ctx.Err() != nil || r.fatal != nil {
			break
		}
		if r.opts.Shards > 1 && k%r.opts.Shards != r.opts.Shard-1 {
			continue
		}
		r.rng = rand.New(rand.NewPCG(r.seed, probeStream(p)))
		r.runProbe(info, p, first)
	}
	return r.rec
}

// canCrash says whether the harness can kill and restart the target.
func (r *runner) canCrash() bool {
	_, ok := r.target.(Crasher)
	return ok && r.target.Supports(&faults.Crash{Point: faults.AfterEffect})
}

// supports says whether f can be injected into the target: crash faults
// also need a target the harness can kill and restart.
func (r *runner) supports(f faults.Fault) bool {
	if _, ok := f.(faults.CrashFault); ok {
		if _, ok := r.target.(Crasher); !ok {
			return false
		}
	}
	return r.target.Supports(f)
}

func (r *runner) runProbe(info TargetInfo, p probe, firstID int) {
	made := make([]*Intent, 0, len(p.steps))
	for i, s := range p.steps {
		if r.ctx.Err() != nil || r.fatal != nil {
			return
		}
		op, _ := info.Operation(s.op)
		in := Intent{
			ID:        firstID + i,
			Operation: s.op,
			Mutating:  op.Mutating,
			Role:      s.role,
			Probe:     p.name,
			Marker:    fakes.NewMarker(r.rng),
		}
		switch {
		case s.noKey:
		case s.keyFrom >= 0:
			in.Key = made[s.keyFrom].Key
			in.Related = made[s.keyFrom].ID
		default:
			in.Key = fmt.Sprintf("idk-%016x", r.rng.Uint64())
		}
		if s.inputsFrom >= 0 {
			in.Inputs = copyMap(made[s.inputsFrom].Inputs)
			in.Related = made[s.inputsFrom].ID
			if s.change {
				r.changeInput(op, in.Inputs)
			}
		} else {
			in.Inputs = r.genInputs(op)
		}
		if p.reversed {
			r.rec.Intents = append(r.rec.Intents, in) // attempted below, together
		} else {
			r.attemptAll(&in, s)
			r.rec.Intents = append(r.rec.Intents, in)
		}
		made = append(made, &r.rec.Intents[len(r.rec.Intents)-1])
	}
	if p.reversed {
		r.deliverReversed(len(r.rec.Intents)-len(p.steps), p.steps)
	}
}

// deliverReversed sends the first attempts of the intents from index first
// on newest first, in one go, then retries each until done.
func (r *runner) deliverReversed(first int, steps []step) {
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
		if steps[i].untilOK {
			r.retryUntilOK(&ins[i], false)
		}
	}
}

func (r *runner) attemptAll(in *Intent, s step) {
	n := s.repeat
	if n < 1 {
		n = 1
	}
	if s.burst > 1 {
		r.burst(in, s.burst)
		n = 0
	}
	if s.badSignature {
		r.forged(in)
		n = 0
	}
	for i := 0; i < n && r.ctx.Err() == nil && r.fatal == nil; i++ {
		var f faults.Fault
		if i == 0 {
			f = s.fault
		}
		r.attempt(in, f, s.dryRun)
	}
	if !s.untilOK {
		return
	}
	r.retryUntilOK(in, s.dryRun)
}

// retryUntilOK retries like a careful client: with the same key, while the
// reply says it may, at most MaxAttempts times for failures, and waiting
// out "in progress" answers (409, 425, 429) for at most StuckWait.
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
		if busy(last.Status) {
			if time.Now().After(deadline) {
				return
			}
			wait := min(r.opts.Backoff<<min(waits, 5), 250*time.Millisecond)
			waits++
			select {
			case <-time.After(wait):
			case <-r.ctx.Done():
				return
			}
		} else {
			failures++
			if failures >= r.opts.MaxAttempts {
				return
			}
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
	call := Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs, DryRun: dryRun, Fault: f}
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
	switch x := f.(type) {
	case faults.CrashFault:
		switch x.CrashPoint() {
		case faults.BeforeEffect:
			rule := fakes.Rule{Marker: in.Marker, Times: 1, Action: fakes.FailBefore, OnMatch: kill}
			for _, fk := range r.env.Fakes {
				fk.Arm(rule)
			}
			defer r.disarm()
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
		defer r.disarm()
	}
	a.LedgerBefore = r.ledger.LastSeq()
	a.Start = time.Now()
	a.Reply = r.target.Call(r.ctx, call)
	a.End = time.Now()
	a.LedgerAfter = r.ledger.LastSeq()
	if crashed.Load() {
		a.Crashed = true
		if err := r.target.(Crasher).Restart(r.ctx); err != nil && r.ctx.Err() == nil {
			r.fatal = fmt.Errorf("restarting the target after %s: %w", f.Name(), err)
		}
	}
	in.Attempts = append(in.Attempts, a)
}

func (r *runner) disarm() {
	for _, fk := range r.env.Fakes {
		fk.Disarm()
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
	a.End, a.LedgerAfter = time.Now(), r.ledger.LastSeq()
	in.Attempts = append(in.Attempts, a)
}

// burst sends n copies of the intent's call at once.
func (r *runner) burst(in *Intent, n int) {
	b := r.target.(Burster)
	base := len(in.Attempts)
	before := r.ledger.LastSeq()
	start := time.Now()
	call := Call{ID: fmt.Sprintf("%s-%d-burst", r.env.RunID[:8], in.ID), Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs}
	replies := b.Burst(r.ctx, call, n)
	end := time.Now()
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
func probeStream(p probe) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(p.name))
	for _, s := range p.steps {
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(s.op))
	}
	return h.Sum64()
}
