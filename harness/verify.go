package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/harness/internal/engine"
	"github.com/idemcheck/idemcheck/record"
)

// ErrNoTargets is returned when there is nothing to run.
var ErrNoTargets = errors.New("no targets")

// Verify runs every target in specs through the enabled checks and scores
// it. A target that cannot be started or tested gets an Error in its
// TargetResult; Verify itself fails only on a cancelled context.
func Verify(ctx context.Context, specs []Spec, opts ...Option) (*record.Result, error) {
	res, _, err := verify(ctx, specs, opts)
	return res, err
}

// verify is Verify, and says for each target whether its Error is the
// generated trials' (a trial could not run), the probes' record being
// whole: Check reports the two apart.
func verify(ctx context.Context, specs []Spec, opts []Option) (*record.Result, []bool, error) {
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	o.fill()
	if o.Shards > 1 && (o.Shard < 1 || o.Shard > o.Shards) {
		return nil, nil, fmt.Errorf("shard %d/%d: expected 1 ≤ i ≤ n", o.Shard, o.Shards)
	}
	for _, id := range o.Checks {
		if !checks.KnownCheck(id) {
			return nil, nil, fmt.Errorf("unknown check %q", id)
		}
	}
	res := &record.Result{Schema: record.ResultSchema, Seed: o.Seed, Nonce: o.Nonce, Started: time.Now().UTC()}
	if o.Shards > 1 {
		res.Meta.Shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	res.Targets = make([]record.TargetResult, len(specs))
	trialsFailed := make([]bool, len(specs))
	places := newSlots(o.Parallel).withGate(newCPUGate(o.CPUBudget, runtime.GOMAXPROCS(0)), runtime.GOMAXPROCS(0))
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
			if err := places.acquire(ctx, i, false); err != nil {
				res.Targets[i] = record.TargetResult{Name: spec.Name, Kind: spec.Kind, Error: "not run: " + err.Error()}
				return
			}
			place := &slot{s: places, index: i, held: true}
			defer place.Leave()
			progress("%s: started testing", spec.Name)
			res.Targets[i], trialsFailed[i] = runTarget(ctx, spec, o, place, func(line string) { progress("%s", line) })
			tr := &res.Targets[i]
			if tr.Error != "" {
				progress("%s: could not be tested: %s", spec.Name, tr.Error)
			} else {
				progress("%s: score %d, %s (%s)", spec.Name, tr.Score.Level, countOf(len(tr.Findings), "finding"), tr.Duration.Round(time.Millisecond))
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

// runTarget runs spec with the run's options o and its own (Spec.Options)
// in a session of the engine, holding place among the targets that work
// at once but while it only waits; a panic of its options is the target's
// Error, as any other of its run is.
func runTarget(ctx context.Context, spec Spec, o Options, place engine.Idler, progress func(string)) (tr record.TargetResult, trialsFailed bool) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			tr = record.TargetResult{Error: fmt.Sprintf("internal error while testing %s: %v", spec.Name, p), Duration: time.Since(start)}
		}
	}()
	o = o.forTarget(spec)
	cfg := o.config(spec)
	cfg.Idle = place
	return engine.NewSession(ctx, spec.engineSpec(), cfg, progress).Run()
}

// countOf is n and noun, in the plural unless n is 1: "1 finding",
// "3 findings".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
