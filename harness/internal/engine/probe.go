package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// probe starts an instance of the target (and its fakes and observers),
// runs the fixed probes, and stops everything it started. It also says
// what trials may contain.
func (s *Session) probe() (tr record.TargetResult, sp scenarios.Space) {
	tr = record.TargetResult{Name: s.spec.Name, Kind: s.spec.Kind}
	ledger := fakes.NewLedger()
	stateDir, err := os.MkdirTemp("", "idemcheck-"+strings.NewReplacer("/", "_", string(os.PathSeparator), "_").Replace(s.spec.Name)+"-")
	if err != nil {
		tr.Error = "cannot make a state directory: " + err.Error()
		return tr, sp
	}
	defer os.RemoveAll(stateDir)
	runID := fmt.Sprintf("%016x", s.seed^uint64(time.Now().UnixNano()))
	inst, err := s.spec.Start(s.ctx, ledger, stateDir, runID)
	if err != nil {
		tr.Error = err.Error()
		return tr, sp
	}
	defer func() {
		if err := inst.Close(); err != nil && tr.Error == "" {
			tr.Error = "stopping the target: " + err.Error()
		}
	}()
	r := &runner{s: s, inst: inst, ledger: ledger, runID: runID, seed: s.seed, nonce: s.cfg.Nonce, ff: failFast{on: true}, deps: &depFlight{}}
	if r.serial() {
		s.serial = true
		s.cfg.TrialWorkers = 1 // one trial at a time (notSerial)
	}
	rec := r.run()
	rec.Ledger = merged(inst, ledger.Effects())
	r.noteObservers(rec)
	tr.Record = rec
	if r.fatal != nil {
		tr.Error = r.fatal.Error()
		return tr, sp
	}
	if err := s.ctx.Err(); err != nil {
		tr.Error = "interrupted: " + err.Error()
		return tr, sp
	}
	return tr, r.space()
}

// run runs the probes the enabled checks plan against the target, and
// returns their record (without the ledger).
func (r *runner) run() *record.Record {
	cfg := r.s.cfg
	info := r.target().Info()
	enabled := map[string]bool{}
	for _, id := range cfg.Checks {
		enabled[id] = true
	}
	r.rec = &record.Record{Target: info, Seed: cfg.Seed, Checks: append([]string(nil), cfg.Checks...)}
	if cfg.Shards > 1 {
		r.rec.Shard = fmt.Sprintf("%d/%d", cfg.Shard, cfg.Shards)
	}
	for name := range r.inst.Deps {
		r.rec.Dependencies = append(r.rec.Dependencies, name)
	}
	slices.Sort(r.rec.Dependencies)
	for _, f := range cfg.Faults {
		r.rec.Faults = append(r.rec.Faults, f.Name())
		if why := r.unsupported(f); why != "" {
			r.rec.Unsupported = append(r.rec.Unsupported, f.Name())
			if r.rec.UnsupportedWhy == nil {
				r.rec.UnsupportedWhy = map[string]string{}
			}
			r.rec.UnsupportedWhy[f.Name()] = why
			if owner := checks.FaultOwner(faults.ClassOf(f)); len(enabled) == 0 || enabled[owner] {
				u := record.Unexamined{Check: owner, Fault: f.Name(), Cause: record.CauseUnsupported, Reason: why}
				if by := r.coveredBy(f, cfg.Faults); by != "" {
					u.Cause, u.Reason = record.CauseCovered, why+"; "+by+", which kills it at its database's commit, was tried instead"
				}
				r.rec.Unexamined = append(r.rec.Unexamined, u)
			}
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
	plan := checks.Planner{Enabled: enabled, Faults: cfg.Faults, Supports: r.supports, Burst: cfg.Burst, Bursts: cfg.Bursts, Late: cfg.Late}
	probes := plan.Plan(info)
	mine := 0
	for k := range probes {
		if cfg.Shards <= 1 || k%cfg.Shards == cfg.Shard-1 {
			mine++
		}
	}
	defer r.startProgress(mine)()
	for k, p := range probes {
		first := nextID
		nextID += len(p.Steps)
		if r.s.ctx.Err() != nil || r.fatal != nil {
			break
		}
		if cfg.Shards > 1 && k%cfg.Shards != cfg.Shard-1 {
			continue
		}
		r.rng = rand.New(rand.NewPCG(r.seed, probeStream(p.Probe)))
		r.probing(probeLabel(p.Probe))
		pr := r.runProbe(info, r.atFirstPoint(p.Probe), p.Serves, first)
		if pr == nil {
			r.probed()
		}
		if pr != nil {
			tails = append(tails, pr)
			for _, id := range p.Serves {
				pending[id] = true
			}
		}
	}
	// Each fault that acts at one downstream call, armed at each call
	// after the first that the operation's clean run made: their intent
	// numbers follow the plan's, maxPoints per probe, whatever this run
	// found, so that a shard numbers them as the whole run does.
	for k, p := range probes {
		if r.s.ctx.Err() != nil || r.fatal != nil {
			break
		}
		if cfg.Shards > 1 && k%cfg.Shards != cfg.Shard-1 {
			continue
		}
		later := r.laterPoints(p.Probe)
		r.planned(len(later))
		for j, q := range later {
			r.rng = rand.New(rand.NewPCG(r.seed, probeStream(q)))
			r.probing(probeLabel(q))
			r.runProbe(info, q, p.Serves, nextID+k*(maxPoints-1)+j)
			r.probed()
		}
	}
	if len(tails) > 0 && r.s.startsEarly() && r.s.ctx.Err() == nil && r.fatal == nil {
		// Whether the target acts in the background decides whether the
		// trials that start now wait for their effects.
		if r.noteBackground(); r.s.background != nil && !r.s.background.Load() && r.fatal == nil {
			r.settleBackground()
		}
		// What the tails' checks find is not known yet: the session
		// judges a trial that shows only that once it is.
		r.s.beforeTails(r.snapshot(), pending, r.space())
	}
	// The tails of the probes that asked to finish last: the time the other
	// probes took counts towards their waits.
	for _, pr := range tails {
		if r.s.ctx.Err() != nil || r.fatal != nil {
			break
		}
		r.rng = rand.New(rand.NewPCG(r.seed, probeStream(pr.p)^0x7a11))
		r.probing(probeLabel(pr.p))
		r.runSteps(info, pr, len(pr.p.Steps)-pr.p.Tail, len(pr.p.Steps))
		r.probed()
	}
	if len(tails) > 0 {
		// The record lists intents in plan order, as a shard's does, and
		// as Merge puts them back together.
		sort.SliceStable(r.rec.Intents, func(i, j int) bool { return r.rec.Intents[i].ID < r.rec.Intents[j].ID })
	}
	if r.fatal == nil {
		r.settleBackground()
	}
	effects := r.ledger.Effects()
	late := lateWhy(r.rec, effects, r.inst.Fakes)
	noteUnfired(r.rec, func(id, n int) string {
		if why := r.deps.unfiredWhy(id, n); why != "" {
			if why == unfiredByMarker {
				why = markerSeenElsewhere(r.rec, effects, id, why)
			}
			return why
		}
		return late(id, n)
	}, r.fakesUnused(effects))
	r.notePointsUnarmed()
	return r.rec
}

// snapshot returns a copy of the record so far, with the ledger's effects,
// that the run goes on without touching: its intents in plan order.
func (r *runner) snapshot() *record.Record {
	rec := *r.rec
	rec.Intents = make([]record.Intent, len(r.rec.Intents))
	for i, in := range r.rec.Intents {
		in.Attempts = slices.Clone(in.Attempts)
		in.Inputs = copyMap(in.Inputs)
		rec.Intents[i] = in
	}
	sort.SliceStable(rec.Intents, func(i, j int) bool { return rec.Intents[i].ID < rec.Intents[j].ID })
	rec.Ledger = merged(r.inst, r.ledger.Effects())
	r.noteObservers(&rec)
	return &rec
}

// capabilities are what the target declares in info, with the abilities
// its interfaces show filled in.
func (r *runner) capabilities(info record.TargetInfo) *record.Capabilities {
	caps := info.Caps()
	_, caps.Burst = r.target().(Burster)
	_, caps.Signatures = r.target().(Signer)
	_, caps.Reorder = r.target().(Reorderer)
	caps.Restart = r.canCrash()
	caps.ObservedOnly = r.observedOnly()
	if r.serial() {
		// Attributed by delta: nothing that sends distinct intents at
		// once (see notSerial).
		caps.Reorder = false
		caps.Serial = true
	}
	return &caps
}

// canCrash says whether the harness can kill and restart the target.
func (r *runner) canCrash() bool {
	_, ok := r.target().(Crasher)
	return ok && r.target().Supports(&faults.Crash{Point: faults.AfterEffect})
}

// fakesUnused is fakesUnused for the run's fakes and faults; a shard,
// which sees some of the run only, never judges the whole run's calls.
func (r *runner) fakesUnused(effects []fakes.Effect) func(string) string {
	if r.s.cfg.Shards > 1 {
		return func(string) string { return "" }
	}
	return fakesUnused(effects, r.inst.Fakes, r.needsFake)
}

// needsFake says whether the fault named name acts on the target's calls
// to the fakes.
func (r *runner) needsFake(name string) bool {
	for _, f := range r.s.cfg.Faults {
		if f.Name() == name {
			return needsFake(f)
		}
	}
	return false
}

// coveredBy names the fault of fs that acts at f's point when f cannot
// (see CauseCovered): for a crash before the effect, the crash before the
// commit of the target's database, and after it, the crash after the
// commit, when fs holds it and the target takes it. "" otherwise.
func (r *runner) coveredBy(f faults.Fault, fs []faults.Fault) string {
	c, ok := f.(faults.CrashFault)
	if !ok {
		return ""
	}
	want := ""
	switch c.CrashPoint() {
	case faults.BeforeEffect:
		want = faults.NameCrashBeforeCommit
	case faults.AfterEffect:
		want = faults.NameCrashAfterCommit
	default:
		return ""
	}
	for _, g := range fs {
		if g.Name() == want && r.unsupported(g) == "" {
			return want
		}
	}
	return ""
}

// supports says whether f can be injected into the target: crash faults
// also need a target the harness can kill and restart.
func (r *runner) supports(f faults.Fault) bool { return r.unsupported(f) == "" }

// unsupported says why f cannot be injected into the target, or "" when
// it can.
func (r *runner) unsupported(f faults.Fault) string {
	if why := needsDep(f, r.inst.Deps); why != "" {
		return why
	}
	if _, ok := f.(faults.DependencyFault); ok {
		// The dependency's proxy acts, whatever the adapter; the target
		// may still say that what the fault is for cannot happen there.
		if e, ok := r.target().(FaultExplainer); ok {
			return e.WhyUnsupported(f)
		}
		return ""
	}
	if _, ok := f.(faults.RedeliveryFault); ok && !r.rec.Target.Caps().Redelivery {
		// Before any other reason: one that also kills (a batch's crash)
		// is still the broker's.
		return "it acts through a broker that delivers events: only a consumer target takes it"
	}
	_, crash := f.(faults.CrashFault)
	if _, ok := r.target().(Crasher); crash && !ok {
		return "this kind of target cannot be killed and restarted"
	}
	// A target that cannot be killed at all says so before anything a
	// crash at one point would also need.
	if crash && !r.canCrash() {
		if e, ok := r.target().(FaultExplainer); ok {
			if why := e.WhyUnsupported(f); why != "" {
				return why
			}
		}
		return "idemcheck did not start the target, so it cannot kill it"
	}
	if r.observedOnly() && needsFake(f) {
		if _, ok := f.(faults.DisconnectFault); ok {
			return "the client leaves when a fake sees the target's downstream call, and the target's effects are counted only by observers: no fake takes its calls"
		}
		return "the target's effects are counted only by observers: no fake sees the downstream call this fault acts on"
	}
	if r.target().Supports(f) {
		return ""
	}
	if e, ok := r.target().(FaultExplainer); ok {
		if why := e.WhyUnsupported(f); why != "" {
			return why
		}
	}
	if crash {
		// It can be killed, not at this point of a call (a command
		// that has replied has exited).
		return "the adapter cannot kill the target at this point of a call"
	}
	return "the adapter cannot inject this fault"
}

// space describes what trials against the target may contain: its
// operations, the faults it can take, bursts and overlapping steps where
// it takes calls at once, restarts where the harness can restart it.
func (r *runner) space() scenarios.Space {
	info, burst := r.rec.Target, r.s.cfg.Burst
	caps := info.Caps()
	if !caps.Burst {
		burst = 0
	}
	// Steps overlap where the target takes calls at once (it can take a
	// burst), never under a fault that kills it, restarts its database or
	// otherwise acts on every call in flight (disrupts).
	s := scenarios.Space{Restart: caps.Restart, Burst: burst, Overlap: caps.Burst && !r.serial()}
	for _, op := range info.Operations {
		s.Ops = append(s.Ops, scenarios.Op{Name: op.Name, Mutating: op.Mutating, DryRun: op.DryRun, Inputs: len(op.Inputs) > 0,
			KeyAlways: caps.Redelivery || caps.EventKeys, EventKey: caps.EventKeys})
	}
	for _, f := range r.s.cfg.Faults {
		if r.supports(f) {
			s.Faults = append(s.Faults, f.Name())
			if disrupts(r.target(), f) {
				s.Alone = append(s.Alone, f.Name())
			}
		}
	}
	return s
}

// probeLabel names a probe in a progress line: its name and operation.
func probeLabel(p checks.Probe) string {
	if len(p.Steps) > 0 && p.Steps[0].Op != "" {
		return p.Name + " on " + p.Steps[0].Op
	}
	return p.Name
}
