package harness

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/scenarios"
)

// ScenarioResult is what the generated trials of one target showed.
type ScenarioResult struct {
	// Trials is how many trials ran (shrinking included).
	Trials int `json:"trials"`
	// Counterexample is the minimal failing trial rapid shrank to, if any.
	Counterexample *scenarios.Trial `json:"counterexample,omitempty"`
	// Steps is the counterexample as a readable step list.
	Steps string `json:"steps,omitempty"`
	// Findings are what the counterexample made the checks report.
	Findings []Finding `json:"findings,omitempty"`
	// Record is the counterexample's run, for evidence and re-scoring.
	Record *Record `json:"record,omitempty"`
	// Flaky is true when replaying the counterexample did not fail the
	// same way.
	Flaky bool `json:"flaky,omitempty"`
	// Replayed lists saved trials that were run again first, and whether
	// they still fail.
	Replayed []ReplayedTrial `json:"replayed,omitempty"`
	// Stopped says why trials stopped early (the budget), if they did.
	Stopped string `json:"stopped,omitempty"`
}

// ReplayedTrial is a saved failing trial run again at the start of a run.
type ReplayedTrial struct {
	Trial     scenarios.Trial `json:"trial"`
	StillFail bool            `json:"still_fails"`
	Checks    []string        `json:"checks,omitempty"`
}

// rapidMu serialises uses of rapid, whose settings are process-wide flags.
var rapidMu sync.Mutex

// setRapidFlag sets one of rapid's flags (registered on flag.CommandLine).
func setRapidFlag(name, value string) {
	if f := flag.CommandLine.Lookup(name); f != nil {
		_ = f.Value.Set(value)
	}
}

// space describes what trials against info may contain.
func space(info TargetInfo, fs []faults.Fault, supports func(faults.Fault) bool, canRestart bool, burst int) scenarios.Space {
	s := scenarios.Space{Restart: canRestart, Burst: burst}
	for _, op := range info.Operations {
		s.Ops = append(s.Ops, scenarios.Op{Name: op.Name, Mutating: op.Mutating, DryRun: op.DryRun, Inputs: len(op.Inputs) > 0})
	}
	for _, f := range fs {
		if supports(f) {
			s.Faults = append(s.Faults, f.Name())
		}
	}
	return s
}

// trialRun starts a fresh target (and its fakes) from spec, runs one trial
// on it, and returns the record.
func trialRun(ctx context.Context, spec Spec, o Options, seed uint64, tr scenarios.Trial) (*Record, error) {
	ledger := fakes.NewLedger()
	stateDir, err := os.MkdirTemp("", "idemcheck-trial-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stateDir)
	env := &Env{Fakes: map[string]fakes.Fake{}, Ledger: ledger, StateDir: stateDir, RunID: fmt.Sprintf("%016x", seed)}
	defer func() {
		for _, f := range env.Fakes {
			_ = f.Close()
		}
	}()
	for _, start := range spec.Fakes {
		f, err := start(ctx, ledger)
		if err != nil {
			return nil, fmt.Errorf("cannot start a fake: %w", err)
		}
		env.Fakes[f.Name()] = f
	}
	target, err := spec.Start(ctx, env)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	r := &runner{ctx: ctx, opts: o, target: target, env: env, ledger: ledger, seed: seed,
		rng: rand.New(rand.NewPCG(seed, 0x7472))}
	info := target.Info()
	r.rec = &Record{Target: info, Seed: o.Seed, Checks: append([]string(nil), o.Checks...)}
	byName := map[string]faults.Fault{}
	for _, f := range o.Faults {
		byName[f.Name()] = f
	}
	r.runTrial(info, tr, byName)
	r.rec.Ledger = ledger.Effects()
	if r.fatal != nil {
		return r.rec, r.fatal
	}
	return r.rec, ctx.Err()
}

// runTrial runs the trial's steps in order, appending intents to r.rec.
func (r *runner) runTrial(info TargetInfo, tr scenarios.Trial, byName map[string]faults.Fault) {
	made := make([]int, len(tr.Steps)) // step → index in r.rec.Intents
	for i, s := range tr.Steps {
		if r.ctx.Err() != nil || r.fatal != nil {
			return
		}
		if s.Restart && r.canCrash() {
			if c, ok := r.target.(Crasher); ok {
				if err := c.Restart(r.ctx); err != nil {
					r.fatal = fmt.Errorf("restarting the target before step %d: %w", i+1, err)
					return
				}
			}
		}
		op, ok := info.Operation(s.Op)
		if !ok {
			r.fatal = fmt.Errorf("trial step %d: the target has no operation %q", i+1, s.Op)
			return
		}
		fault := byName[s.Fault]
		if s.Key == scenarios.Again {
			idx := made[s.Of]
			in := &r.rec.Intents[idx]
			r.attempt(in, fault, false)
			if !s.GiveUp {
				r.retryUntilOK(in, false)
			}
			in.GaveUp = s.GiveUp && !in.Acknowledged()
			made[i] = idx
			continue
		}
		in := Intent{ID: len(r.rec.Intents) + 1, Operation: s.Op, Mutating: op.Mutating, Role: RolePlain,
			Probe: fmt.Sprintf("trial step %d", i+1), Marker: fakes.NewMarker(r.rng)}
		key := fmt.Sprintf("idk-%016x", r.rng.Uint64())
		in.Inputs = r.genInputs(op)
		switch {
		case !op.Mutating:
			in.Role, in.Key = RoleRead, key
		case s.DryRun:
			in.Role, in.Key = RoleDryRun, key
		case s.Burst > 1:
			in.Role, in.Key = RoleBurst, key
		case s.Key == scenarios.None:
			in.Role = RoleNoKey
		case s.Key == scenarios.Twin:
			origin := r.rec.Intents[made[s.Of]]
			in.Role, in.Key, in.Related, in.Inputs = RoleTwin, key, origin.ID, copyMap(origin.Inputs)
		case s.Key == scenarios.Changed:
			origin := r.rec.Intents[made[s.Of]]
			in.Role, in.Key, in.Related, in.Inputs = RoleMismatch, origin.Key, origin.ID, copyMap(origin.Inputs)
			r.changeInput(op, in.Inputs)
		default:
			in.Key = key
		}
		if _, ok := r.target.(Burster); ok && in.Role == RoleBurst {
			r.burst(&in, s.Burst)
		} else {
			r.attempt(&in, fault, s.DryRun)
		}
		if !s.GiveUp && in.Role != RoleMismatch && in.Role != RoleDryRun && in.Role != RoleRead {
			r.retryUntilOK(&in, s.DryRun)
		}
		in.GaveUp = s.GiveUp && !in.Acknowledged()
		r.rec.Intents = append(r.rec.Intents, in)
		made[i] = len(r.rec.Intents) - 1
	}
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

// scenarioTB is the rapid.TB of a run outside go test: it keeps what rapid
// says, and never stops the calling goroutine.
type scenarioTB struct {
	mu     sync.Mutex
	name   string
	failed bool
	log    []string
}

func (t *scenarioTB) Helper()      {}
func (t *scenarioTB) Name() string { return t.name }
func (t *scenarioTB) Logf(format string, args ...any) {
	t.mu.Lock()
	t.log = append(t.log, fmt.Sprintf(format, args...))
	t.mu.Unlock()
}
func (t *scenarioTB) Log(args ...any)                  { t.Logf("%s", fmt.Sprint(args...)) }
func (t *scenarioTB) Skipf(format string, args ...any) { t.Logf(format, args...) }
func (t *scenarioTB) Skip(args ...any)                 { t.Log(args...) }
func (t *scenarioTB) SkipNow()                         {}
func (t *scenarioTB) Errorf(format string, args ...any) {
	t.Logf(format, args...)
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}
func (t *scenarioTB) Error(args ...any)                 { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *scenarioTB) Fatalf(format string, args ...any) { t.Errorf(format, args...) }
func (t *scenarioTB) Fatal(args ...any)                 { t.Error(args...) }
func (t *scenarioTB) FailNow()                          {}
func (t *scenarioTB) Fail()                             { t.Errorf("failed") }
func (t *scenarioTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// property is the check rapid runs on each generated trial: a trial holds
// when the checks report nothing on it.
type property struct {
	ctx     context.Context
	spec    Spec
	opts    Options
	space   scenarios.Space
	seed    uint64
	start   time.Time
	budget  time.Duration
	mu      sync.Mutex
	n       int
	fatal   error
	last    *scenarios.Trial
	lastRec *Record
	lastFs  []Finding
	stopped string
	onTrial func(n int)
}

func (p *property) check(t *rapid.T) {
	tr := scenarios.Gen(p.space).Draw(t, "trial")
	p.mu.Lock()
	if p.fatal != nil || p.ctx.Err() != nil {
		p.mu.Unlock()
		return
	}
	if p.budget > 0 && time.Since(p.start) > p.budget {
		p.stopped = fmt.Sprintf("the budget of %s ran out", p.budget)
		p.mu.Unlock()
		return
	}
	p.n++
	n := p.n
	p.mu.Unlock()
	if p.onTrial != nil {
		p.onTrial(n)
	}
	rec, err := trialRun(p.ctx, p.spec, p.opts, p.seed+uint64(n)*0x9e3779b97f4a7c15, tr)
	if err != nil {
		p.mu.Lock()
		if p.fatal == nil && p.ctx.Err() == nil {
			p.fatal = err
		}
		p.mu.Unlock()
		return
	}
	_, fs := Evaluate(rec)
	if len(fs) == 0 {
		return
	}
	p.mu.Lock()
	p.last, p.lastRec, p.lastFs = &tr, rec, fs
	p.mu.Unlock()
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s: %s", f.Severity, f.Check, f.Message)
	}
	t.Fatalf("trial:\n%s\nfindings:%s", tr.String(), b.String())
}

// runScenarios generates trials against fresh instances of spec until one
// fails (then shrinks it) or o.Trials have passed.
func runScenarios(ctx context.Context, spec Spec, o Options, info TargetInfo, sp scenarios.Space, seed uint64, progress func(string)) (*ScenarioResult, error) {
	res := &ScenarioResult{}
	for _, saved := range o.Replay {
		if saved.Target != "" && saved.Target != spec.Name {
			continue
		}
		rec, err := trialRun(ctx, spec, o, seed, saved.Trial)
		if err != nil {
			return res, err
		}
		_, fs := Evaluate(rec)
		res.Replayed = append(res.Replayed, ReplayedTrial{Trial: saved.Trial, StillFail: len(fs) > 0, Checks: findingChecks(fs)})
		if len(fs) > 0 && res.Counterexample == nil {
			tr := saved.Trial
			res.Counterexample, res.Record, res.Findings = &tr, rec, fs
		}
	}
	if o.Trials <= 0 || res.Counterexample != nil {
		return res, nil
	}
	p := &property{ctx: ctx, spec: spec, opts: o, space: sp, seed: seed, start: time.Now(), budget: o.Budget}
	if progress != nil {
		p.onTrial = func(n int) {
			if n%25 == 0 {
				line := fmt.Sprintf("%s: %d of %d trials", spec.Name, n, o.Trials)
				if o.Budget > 0 {
					line += fmt.Sprintf(", %s of the budget left", max(o.Budget-time.Since(p.start), 0).Round(time.Second))
				}
				progress(line)
			}
		}
	}
	checkWithRapid(spec.Name, o, seed, p)
	res.Trials, res.Stopped = p.n, p.stopped
	if p.fatal != nil {
		return res, p.fatal
	}
	if p.last == nil {
		return res, nil
	}
	res.Counterexample, res.Record, res.Findings = p.last, p.lastRec, p.lastFs
	minimize(ctx, spec, o, seed, res)
	// Honest: replay the counterexample before reporting it.
	rec, err := trialRun(ctx, spec, o, seed^0xfeed, *p.last)
	if err == nil {
		_, again := Evaluate(rec)
		res.Flaky = strings.Join(findingChecks(again), ",") != strings.Join(findingChecks(res.Findings), ",")
	}
	return res, nil
}

// minimize goes on where rapid's shrinking stopped, a step at a time: it
// drops whole steps, then faults, restarts and give-ups, keeping each
// change while the trial still fails the same checks. rapid shrinks the
// choices that made the trial; this removes what a reader does not need.
func minimize(ctx context.Context, spec Spec, o Options, seed uint64, res *ScenarioResult) {
	want := strings.Join(findingChecks(res.Findings), ",")
	try := func(tr scenarios.Trial) bool {
		if ctx.Err() != nil || tr.Validate() != nil {
			return false
		}
		rec, err := trialRun(ctx, spec, o, seed^0x5eed, tr)
		if err != nil {
			return false
		}
		_, fs := Evaluate(rec)
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
	for i := range res.Counterexample.Steps {
		if time.Now().After(deadline) {
			return
		}
		for _, simplify := range []func(*scenarios.Step) bool{
			func(s *scenarios.Step) bool { ok := s.Fault != ""; s.Fault = ""; return ok },
			func(s *scenarios.Step) bool { ok := s.Restart; s.Restart = false; return ok },
			func(s *scenarios.Step) bool { ok := s.GiveUp; s.GiveUp = false; return ok },
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

// checkWithRapid runs rapid on p outside go test. rapid's settings are
// process-wide flags, so runs take turns; the lock is released even if
// rapid panics (the runner recovers and reports it).
func checkWithRapid(name string, o Options, seed uint64, p *property) {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	testing.Init()
	if !flag.Parsed() {
		// Outside go test nothing parsed the command line; rapid asks
		// testing.Short, which needs it parsed. Parse nothing: the
		// program's own arguments are its business.
		_ = flag.CommandLine.Parse(nil)
	}
	setRapidFlag("rapid.checks", strconv.Itoa(o.Trials))
	setRapidFlag("rapid.seed", strconv.FormatUint(seed|1, 10))
	setRapidFlag("rapid.nofailfile", "true")
	// rapid shrinks choices; minimize then removes steps. Bound the first.
	shrink := 10 * time.Second
	if o.Budget > 0 {
		shrink = min(shrink, max(o.Budget/2, time.Second))
	}
	setRapidFlag("rapid.shrinktime", shrink.String())
	rapid.Check(&scenarioTB{name: name}, p.check)
}
