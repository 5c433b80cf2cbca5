package harness

import (
	"io"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness/internal/engine"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Defaults for Options.
const (
	DefaultMaxAttempts = 5
	DefaultBackoff     = 20 * time.Millisecond
	DefaultParallel    = 4
	DefaultStuckWait   = time.Second
	DefaultBurst       = 20
	DefaultBursts      = 10
	// DefaultTrialWorkers is how many generated trials run at once on a
	// target whose every start is its own instance (Spec.Isolated), each
	// worker on an instance of its own, running its share of the trials
	// in order: a seed finds the same counterexample whatever the timing.
	// It is a fixed number, not the machine's processors, so that a seed
	// draws the same trials for each instance everywhere. A target
	// reached where it runs (not Isolated) runs one trial at a time
	// unless asked for more: trials side by side would share its state.
	DefaultTrialWorkers = 4
	// DefaultMinScore is the score a run asks of every target unless told
	// otherwise (Check without WithMinScore; idemcheck run and report
	// without --min-score): the rubric's top level.
	DefaultMinScore = 3
)

// Options tune a run. The zero value is usable: every field has a default.
type Options struct {
	// Seed drives every random choice (keys, markers, inputs).
	Seed uint64
	// Nonce is mixed into every key and marker (see package keys), so
	// that two runs with the same seed make the same choices but never
	// send the same keys; 0 draws a fresh one. The result records it.
	Nonce uint64
	// Checks are the ids of the checks to run; empty means all.
	Checks []string
	// Skip are the ids of checks not to run, of Checks or of all.
	Skip []string
	// MinScore is the lowest score Check accepts (see WithMinScore);
	// Verify ignores it, leaving the verdict to its caller.
	MinScore int
	// Faults are the faults the checks try; nil means DefaultFaults(),
	// or a target's kind's own (WithKindFaults), and DependencyFaults()
	// too for a target that declares a dependency.
	Faults []faults.Fault
	// defaultFaults says that Faults were left to the default
	// (WithDefaultFaults, or none given).
	defaultFaults bool
	// kindFaults, set by a Spec's options, replace default Faults for
	// the spec's target.
	kindFaults []faults.Fault
	// minHold, set by a Spec's options, is the least a fault that holds
	// the spec's target's work holds it (WithMinHold).
	minHold time.Duration
	// kindBurst and kindBursts, set by a Spec's options, replace the
	// default burst size and count for the spec's target
	// (WithKindBursts); burstSet and burstsSet say that the run set its
	// own (WithBurst, WithBursts), which they do not replace.
	kindBurst, kindBursts int
	burstSet, burstsSet   bool
	// MaxAttempts bounds the attempts at one intent.
	MaxAttempts int
	// Backoff is the first wait before retrying a 409, 425 or 429, or
	// before the second retry after failures; it doubles, up to 250ms.
	Backoff time.Duration
	// Parallel is how many targets work at once. A target whose probes
	// only wait (a late retry's delay, with no generated trials beside
	// it) gives up its place meanwhile, and takes one again before the
	// targets not yet started; those start in the order given.
	Parallel int
	// CPUBudget, when above 0, is the share of the machine's processors
	// (0 to 1) the run may keep busy before it starts another target: a
	// target not yet started waits for a free place (Parallel) and, once
	// as many targets as processors work, until the machine spends less
	// than this share of its processors' time working. Targets that mostly
	// wait then work side by side in numbers, and ones that compute do not
	// crowd each other out. 0: no budget, Parallel targets at once.
	CPUBudget float64
	// StuckWait bounds how long retries keep waiting out "in progress"
	// answers (409, 425, 429) before the intent is called stuck.
	StuckWait time.Duration
	// Burst is how many copies a concurrent.duplicates burst sends.
	Burst int
	// Bursts is how many bursts concurrent.duplicates sends per mutating
	// operation, each with a fresh key, spread across the run after a
	// warm-up: a race a target wins once (a cold connection pool
	// serialises the copies) it loses on later bursts.
	Bursts int
	// Trials is how many generated trials (see package scenarios) each
	// target gets after the probes (beside their late retries, for a
	// target whose every start is its own: Spec.Isolated); 0 runs none.
	Trials int
	// FreshTrials starts a fresh target, fakes and state directory for
	// every generated trial, as the shrinking of a failing one always
	// does. By default trials share a running target (one per worker:
	// see TrialWorkers), told apart by their keys and markers, and the
	// target restarts only when a trial
	// asks for it: a target whose state leaks from one key to another
	// (a rate limit, a global counter) needs a fresh one per trial.
	FreshTrials bool
	// TrialWorkers is how many generated trials run at once on a target;
	// 0 means DefaultTrialWorkers for a target whose every start is its
	// own instance (Spec.Isolated), one for any other. Such a target
	// gets an instance per worker, and worker w runs trials w+1,
	// w+1+TrialWorkers, … in order on its own: the same seed and number
	// of workers find the same counterexample. Trials of any other target
	// share its one instance, each worker taking the next trial; those
	// that restart it or take a fault that acts on all of it (a crash, a
	// restart of its database, a fault it says disrupts it: Disrupter)
	// run alone, and which trial fails first may then depend on timing
	// (trials side by side load a bounded store with each other's keys).
	// The shrinking and the confirmation of a failing trial always run it
	// alone on a fresh instance.
	TrialWorkers int
	// Budget bounds the time trials may take per target (0: no bound).
	Budget time.Duration
	// Replay are saved failing trials, run again first.
	Replay []scenarios.Saved
	// Shard and Shards split a run: only probes k with k % Shards ==
	// Shard-1 run. Merge puts the shards back together.
	Shard, Shards int
	// Progress, if set, receives one line per target started and finished.
	Progress io.Writer
	// LateOptions tune retry.late's late retries (see WithLateRetry and
	// WithTrialWaits).
	checks.LateOptions

	// minScoreSet says that MinScore was given: otherwise Check requires
	// DefaultMinScore of a run of every check.
	minScoreSet bool
}

// Option changes Options.
type Option func(*Options)

// WithSeed sets the seed.
func WithSeed(seed uint64) Option { return func(o *Options) { o.Seed = seed } }

// WithNonce fixes the run's nonce (see Options.Nonce): a run with the seed
// and nonce of an earlier one sends byte for byte the same keys and
// markers.
func WithNonce(n uint64) Option { return func(o *Options) { o.Nonce = n } }

// WithChecks restricts the run to the checks with these ids.
func WithChecks(ids ...string) Option { return func(o *Options) { o.Checks = ids } }

// WithSkip runs every check (or every one WithChecks names) but these.
func WithSkip(ids ...string) Option { return func(o *Options) { o.Skip = ids } }

// WithMinScore makes Check fail the test when the target scores below n
// (0 to 3; 0 never fails on the score). Without it Check requires
// DefaultMinScore, unless WithChecks or WithSkip leave checks out: a
// partial run shows no full score, so its score is reported, not gated.
func WithMinScore(n int) Option {
	return func(o *Options) { o.MinScore, o.minScoreSet = n, true }
}

// WithFaults sets the faults the checks try, on every target, whatever
// its kind: a target that cannot take one is told why in its report.
// WithFaults() with none tries none: only the checks that need no fault
// run.
func WithFaults(fs ...faults.Fault) Option {
	if fs == nil {
		fs = []faults.Fault{}
	}
	return func(o *Options) { o.Faults, o.defaultFaults = fs, false }
}

// WithDefaultFaults sets the faults the checks try as the run's defaults,
// in place of DefaultFaults: a target whose kind has faults of its own
// (WithKindFaults) is tried with those instead, and one that declares a
// dependency with DependencyFaults too. A configuration file without a
// faults list gives its registry's defaults this way; none given means
// DefaultFaults.
func WithDefaultFaults(fs ...faults.Fault) Option {
	if fs == nil {
		fs = DefaultFaults()
	}
	return func(o *Options) { o.Faults, o.defaultFaults = fs, true }
}

// WithKindFaults, among a Spec's Options, sets the faults its target is
// tried with when the run's faults are its defaults (none given, or
// WithDefaultFaults): a queue consumer's are the broker's redeliveries,
// not a client's faults, which it cannot take. A run told its faults
// (WithFaults) tries those.
func WithKindFaults(fs ...faults.Fault) Option {
	return func(o *Options) { o.kindFaults = fs }
}

// WithMinHold, among a Spec's Options, makes every fault that holds its
// target's work (a faults.Stretcher such as dep-stall) hold it for at
// least d, whatever its settings say: a queue consumer's stall must
// outlast the broker's ack deadline, or whether the redelivery meets the
// first delivery still held is a matter of timing.
func WithMinHold(d time.Duration) Option {
	return func(o *Options) { o.minHold = d }
}

// WithMaxAttempts bounds the attempts at one intent.
func WithMaxAttempts(n int) Option { return func(o *Options) { o.MaxAttempts = n } }

// WithStuckWait bounds how long 409s are waited out (after a fault that
// holds the target's own work, a faults.Holder such as dep-stall, for
// that hold on top).
func WithStuckWait(d time.Duration) Option { return func(o *Options) { o.StuckWait = d } }

// WithBurst sets how many copies a burst sends.
func WithBurst(n int) Option { return func(o *Options) { o.Burst, o.burstSet = n, n > 0 } }

// WithBursts sets how many bursts are sent per mutating operation.
func WithBursts(n int) Option { return func(o *Options) { o.Bursts, o.burstsSet = n, n > 0 } }

// WithKindBursts, among a Spec's Options, sets its target's bursts
// (size copies, count bursts per mutating operation; 0 keeps the
// default) where the run left them to the default: a queue consumer's
// copies are publishes each waited for until acknowledged, and a few
// show its races as well as many. A run that sets its own (WithBurst,
// WithBursts, a configuration's bursts: or retry.burst) keeps them.
func WithKindBursts(size, count int) Option {
	return func(o *Options) { o.kindBurst, o.kindBursts = size, count }
}

// WithTrials runs n generated trials per target after the probes.
func WithTrials(n int) Option { return func(o *Options) { o.Trials = n } }

// WithFreshTrials runs every generated trial on a fresh target (see
// Options.FreshTrials).
func WithFreshTrials() Option { return func(o *Options) { o.FreshTrials = true } }

// WithTrialWorkers sets how many generated trials run at once on a target
// (see Options.TrialWorkers); 1 runs them one after another on one
// instance.
func WithTrialWorkers(n int) Option { return func(o *Options) { o.TrialWorkers = n } }

// WithBudget bounds the time generated trials may take per target.
func WithBudget(d time.Duration) Option { return func(o *Options) { o.Budget = d } }

// WithReplay runs saved failing trials first.
func WithReplay(saved ...scenarios.Saved) Option { return func(o *Options) { o.Replay = saved } }

// WithShard runs only shard i of n (1 ≤ i ≤ n); see Merge.
func WithShard(i, n int) Option { return func(o *Options) { o.Shard, o.Shards = i, n } }

// WithProgress writes progress lines to w.
func WithProgress(w io.Writer) Option { return func(o *Options) { o.Progress = w } }

// WithParallel sets how many targets work at once (see
// Options.Parallel).
func WithParallel(n int) Option { return func(o *Options) { o.Parallel = n } }

// WithCPUBudget sets the share of the machine's processors a run may keep
// busy before it starts another target (see Options.CPUBudget).
func WithCPUBudget(share float64) Option { return func(o *Options) { o.CPUBudget = share } }

// DefaultFaultNames are the faults a run tries unless told otherwise: every
// registered fault that is quick and deterministic.
var DefaultFaultNames = []string{
	faults.NameClientTimeout, faults.NameUnavailableBefore, faults.NameLostResponse, faults.NameReset, faults.NameHang,
	faults.NameDownstreamFailBefore, faults.NameDownstreamFailAfter, faults.NameDownstreamResetAfter,
	faults.NameCrashBeforeEffect, faults.NameCrashAfterEffect, faults.NameCrashAfterReply,
	faults.NameClientDisconnect,
}

// DependencyFaultNames are the faults added to the defaults for a target
// that declares a dependency (Spec.Dependencies): they act in the proxy in
// front of its database or cache.
var DependencyFaultNames = []string{
	faults.NameDepError, faults.NameDepResetAfterCommit, faults.NameDepStall, faults.NameDepRefuse,
	faults.NameCrashBeforeCommit, faults.NameCrashAfterCommit,
}

// DependencyFaults returns the faults of DependencyFaultNames.
func DependencyFaults() []faults.Fault {
	reg := faults.Builtin()
	var fs []faults.Fault
	for _, n := range DependencyFaultNames {
		f, _ := reg.New(n, nil)
		fs = append(fs, f)
	}
	return fs
}

// DefaultFaults returns the faults a run tries by default (DefaultFaultNames).
func DefaultFaults() []faults.Fault {
	reg := faults.Builtin()
	var fs []faults.Fault
	for _, n := range DefaultFaultNames {
		f, _ := reg.New(n, nil)
		fs = append(fs, f)
	}
	return fs
}

func (o *Options) fill() {
	if o.Faults == nil {
		o.Faults = DefaultFaults()
		o.defaultFaults = true
	}
	if o.Nonce == 0 {
		o.Nonce = keys.NewNonce()
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.StuckWait <= 0 {
		o.StuckWait = DefaultStuckWait
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Bursts <= 0 {
		o.Bursts = DefaultBursts
	}
	o.LateOptions = o.LateOptions.WithDefaults()
	if len(o.Checks) == 0 {
		for _, c := range Checks() {
			o.Checks = append(o.Checks, c.ID)
		}
	}
	if len(o.Skip) > 0 {
		var kept []string
		for _, id := range o.Checks {
			if !slices.Contains(o.Skip, id) {
				kept = append(kept, id)
			}
		}
		o.Checks, o.Skip = kept, nil
	}
}

// forTarget returns o with spec's own options applied; the options that
// concern the whole run keep the run's values.
func (o Options) forTarget(spec Spec) Options {
	t := o
	for _, opt := range spec.Options {
		opt(&t)
	}
	if t.defaultFaults {
		// Neither the run nor the spec named the faults: the kind's own
		// defaults, and its dependencies'.
		if t.kindFaults != nil {
			t.Faults = slices.Clone(t.kindFaults)
		}
		if len(spec.Dependencies) > 0 {
			t.Faults = append(slices.Clone(t.Faults), DependencyFaults()...)
		}
		t.defaultFaults = false
	}
	if t.kindBurst > 0 && !o.burstSet {
		t.Burst = t.kindBurst
	}
	if t.kindBursts > 0 && !o.burstsSet {
		t.Bursts = t.kindBursts
	}
	if t.minHold > 0 {
		fs := slices.Clone(t.Faults)
		for i, f := range fs {
			if s, ok := f.(faults.Stretcher); ok {
				fs[i] = s.HoldingAtLeast(t.minHold)
			}
		}
		t.Faults = fs
	}
	if len(spec.Options) == 0 {
		return t
	}
	t.Seed, t.Nonce, t.Parallel, t.Shard, t.Shards, t.Progress = o.Seed, o.Nonce, o.Parallel, o.Shard, o.Shards, o.Progress
	t.fill()
	return t
}

// config is what the engine is told of a run of spec with o (o.forTarget
// applied): o, with the trial workers' number resolved for spec.
func (o Options) config(spec Spec) engine.Config {
	workers := o.TrialWorkers
	switch {
	case workers > 0:
	case spec.Isolated:
		workers = DefaultTrialWorkers
	default:
		workers = 1
	}
	return engine.Config{
		Seed: o.Seed, Nonce: o.Nonce, Checks: o.Checks, Faults: o.Faults,
		MaxAttempts: o.MaxAttempts, Backoff: o.Backoff, StuckWait: o.StuckWait,
		Burst: o.Burst, Bursts: o.Bursts, Late: o.LateOptions,
		Trials: o.Trials, FreshTrials: o.FreshTrials, TrialWorkers: workers, Budget: o.Budget, Replay: o.Replay,
		Shard: o.Shard, Shards: o.Shards,
	}
}

// gate returns the score Check requires, and false when it requires none.
func (o *Options) gate() (int, bool) {
	switch {
	case o.minScoreSet:
		return o.MinScore, o.MinScore > 0
	case len(o.Checks) > 0 || len(o.Skip) > 0:
		return 0, false
	}
	return DefaultMinScore, true
}

// TrialLimits are what a saved trial of the target spec starts may ask
// for in a run with opts: its largest burst, and the faults the target is
// tried with, the configuration's and its kind's own (a consumer's broker
// faults, a declared database's). A trial file is input: a run refuses a
// trial that asks for more (scenarios.Trial.Within).
func TrialLimits(spec Spec, opts ...Option) scenarios.Limits {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	o.fill()
	o = o.forTarget(spec)
	l := scenarios.Limits{Burst: o.Burst}
	for _, f := range o.Faults {
		l.Faults = append(l.Faults, f.Name())
	}
	return l
}
