package harness

import (
	"io"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Defaults for Options.
const (
	DefaultMaxAttempts = 5
	DefaultBackoff     = 20 * time.Millisecond
	DefaultParallel    = 4
	DefaultStuckWait   = time.Second
	DefaultBurst       = 20
)

// Options tune a run. The zero value is usable: every field has a default.
type Options struct {
	// Seed drives every random choice (keys, markers, inputs).
	Seed uint64
	// Checks are the ids of the checks to run; empty means all.
	Checks []string
	// Faults are tried by retry.after-fault; nil means DefaultFaults().
	Faults []faults.Fault
	// MaxAttempts bounds the attempts at one intent.
	MaxAttempts int
	// Backoff is the first wait before retrying a 409/429; it doubles.
	Backoff time.Duration
	// Parallel is how many targets run at once.
	Parallel int
	// StuckWait bounds how long retries keep waiting out "in progress"
	// answers (409, 425, 429) before the intent is called stuck.
	StuckWait time.Duration
	// Burst is how many copies a concurrent.duplicates burst sends.
	Burst int
	// Trials is how many generated trials (see package scenarios) each
	// target gets after the probes; 0 runs none.
	Trials int
	// Budget bounds the time trials may take per target (0: no bound).
	Budget time.Duration
	// Replay are saved failing trials, run again first.
	Replay []scenarios.Saved
	// Shard and Shards split a run: only probes k with k % Shards ==
	// Shard-1 run. Merge puts the shards back together.
	Shard, Shards int
	// Progress, if set, receives one line per target started and finished.
	Progress io.Writer
}

// Option changes Options.
type Option func(*Options)

// WithSeed sets the seed.
func WithSeed(seed uint64) Option { return func(o *Options) { o.Seed = seed } }

// WithChecks restricts the run to the checks with these ids.
func WithChecks(ids ...string) Option { return func(o *Options) { o.Checks = ids } }

// WithFaults sets the faults retry.after-fault tries.
func WithFaults(fs ...faults.Fault) Option { return func(o *Options) { o.Faults = fs } }

// WithMaxAttempts bounds the attempts at one intent.
func WithMaxAttempts(n int) Option { return func(o *Options) { o.MaxAttempts = n } }

// WithStuckWait bounds how long 409s are waited out.
func WithStuckWait(d time.Duration) Option { return func(o *Options) { o.StuckWait = d } }

// WithBurst sets how many copies a burst sends.
func WithBurst(n int) Option { return func(o *Options) { o.Burst = n } }

// WithTrials runs n generated trials per target after the probes.
func WithTrials(n int) Option { return func(o *Options) { o.Trials = n } }

// WithBudget bounds the time generated trials may take per target.
func WithBudget(d time.Duration) Option { return func(o *Options) { o.Budget = d } }

// WithReplay runs saved failing trials first.
func WithReplay(saved ...scenarios.Saved) Option { return func(o *Options) { o.Replay = saved } }

// WithShard runs only shard i of n (1 ≤ i ≤ n); see Merge.
func WithShard(i, n int) Option { return func(o *Options) { o.Shard, o.Shards = i, n } }

// WithProgress writes progress lines to w.
func WithProgress(w io.Writer) Option { return func(o *Options) { o.Progress = w } }

// WithParallel sets how many targets run at once.
func WithParallel(n int) Option { return func(o *Options) { o.Parallel = n } }

// DefaultFaultNames are the faults a run tries unless told otherwise: every
// registered fault that is quick and deterministic.
var DefaultFaultNames = []string{
	faults.NameClientTimeout, faults.NameUnavailableBefore, faults.NameLostResponse, faults.NameReset, faults.NameHang,
	faults.NameDownstreamFailBefore, faults.NameDownstreamFailAfter, faults.NameDownstreamResetAfter,
	faults.NameCrashBeforeEffect, faults.NameCrashAfterEffect, faults.NameCrashAfterReply,
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
	if len(o.Checks) == 0 {
		for _, c := range Checks() {
			o.Checks = append(o.Checks, c.ID)
		}
	}
}
