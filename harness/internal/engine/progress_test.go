package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestProgressLineSaysWhatTheProbeWaitsFor: while a probe waits (a late
// retry's delay), its progress line says how long is left; once the wait
// is over, it says the probe alone.
func TestProgressLineSaysWhatTheProbeWaitsFor(t *testing.T) {
	r := &runner{pp: &probeProgress{start: time.Now()}}
	r.pp.total.Store(70)
	r.pp.done.Store(69)
	r.probing("late retry on create-order")
	r.waiting(time.Now().Add(2 * time.Second))
	assert.Regexp(t, `^shop: probing: 69 of 70 probes done, 0 attempts, 0s \(now: late retry on create-order, (2|1\.\d)s left to wait\)$`, r.pp.line("shop"))
	r.waiting(time.Time{})
	assert.Regexp(t, `\(now: late retry on create-order\)$`, r.pp.line("shop"))
	r.waiting(time.Now().Add(-time.Second))
	assert.Regexp(t, `\(now: late retry on create-order\)$`, r.pp.line("shop"), "a wait over says nothing")
}

// TestProgressLineCountsTheOtherKeys: while a late retry's other keys are
// sent (eighty calls of a slow tool take a while), the line says how
// many have been, and counts their attempts.
func TestProgressLineCountsTheOtherKeys(t *testing.T) {
	r := &runner{pp: &probeProgress{start: time.Now()}}
	r.pp.total.Store(27)
	r.pp.done.Store(26)
	for range 12 {
		r.attempted()
	}
	r.probing(fillersLabel("late retry on create-order", 12, 80))
	assert.Regexp(t, `^tool: probing: 26 of 27 probes done, 12 attempts, 0s \(now: late retry on create-order: 12 of 80 other keys sent\)$`, r.pp.line("tool"))
}

// lateTarget answers every call at once, takes bursts (so the late
// retry's runs of other keys are sent together), and notes, at every
// call, what the progress line said of the probe then (label), and how
// many calls with a key other than the first had returned by then.
type lateTarget struct {
	label    func() string
	mu       sync.Mutex
	first    string
	seen     map[string]bool
	returned int // calls that sent a key other than the first, returned
	calls    []lateCall
}

// lateCall is one call lateTarget took: whether it retried a key already
// sent, the progress line's label then, and how many other keys had been
// sent by then.
type lateCall struct {
	retry    bool
	label    string
	returned int
}

func (t *lateTarget) Info() record.TargetInfo {
	return record.TargetInfo{Operations: []record.Operation{{Name: "charge", Mutating: true}}}
}

func (t *lateTarget) Call(_ context.Context, c record.Call) record.Reply {
	t.mu.Lock()
	if t.first == "" {
		t.first = c.Key
	}
	retry := t.seen[c.Key]
	t.seen[c.Key] = true
	t.calls = append(t.calls, lateCall{retry: retry, label: t.label(), returned: t.returned})
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !retry && c.Key != t.first {
			t.returned++
		}
	}()
	return record.Reply{Outcome: record.OK, Status: 200, Identity: "ord_" + c.Key}
}

func (t *lateTarget) Supports(faults.Fault) bool { return true }

func (t *lateTarget) Burst(ctx context.Context, c record.Call, n int) []record.Reply {
	out := make([]record.Reply, n)
	for i := range out {
		out[i] = t.Call(ctx, c)
	}
	return out
}

// otherKeysSent reads "late retry on charge: N of M other keys sent".
var otherKeysSent = regexp.MustCompile(`^late retry on charge: (\d+) of (\d+) other keys sent$`)

// callsOnly is a target that takes one call at a time (no bursts): the
// late retry's other keys are then sent one after another.
type callsOnly struct{ t *lateTarget }

func (c callsOnly) Info() record.TargetInfo { return c.t.Info() }
func (c callsOnly) Call(ctx context.Context, call record.Call) record.Reply {
	return c.t.Call(ctx, call)
}
func (c callsOnly) Supports(f faults.Fault) bool { return c.t.Supports(f) }

// TestLateRetryProgressCountsEveryOtherKey: retry.late's probe sends its
// other keys in several runs (between the intents it retries after 1, 2,
// 4 … 64 others), some of them alone; the progress line counts every
// other key the probe has sent, out of all it sends (late_keys), not
// those of the run being sent: when the retries are made, all of them.
// So it does whether the target takes the others together (a Burster)
// or one at a time.
func TestLateRetryProgressCountsEveryOtherKey(t *testing.T) {
	const lateKeys = 80
	all := fmt.Sprintf("late retry on charge: %d of %d other keys sent", lateKeys, lateKeys)
	for _, together := range []bool{true, false} {
		t.Run(fmt.Sprintf("together=%v", together), func(t *testing.T) {
			tgt := &lateTarget{seen: map[string]bool{}}
			var target Target = tgt
			if !together {
				target = callsOnly{tgt}
			}
			cfg := Config{MaxAttempts: 3, Late: checks.LateOptions{LateKeys: lateKeys, LateDelay: -1}}
			s := NewSession(t.Context(), Spec{Name: "shop"}, cfg, nil)
			r := &runner{s: s, inst: &Instance{Target: target}, ledger: fakes.NewLedger(), runID: "0123456789abcdef", seed: 1, nonce: 1,
				ff: failFast{on: true}, deps: &depFlight{}, rng: rand.New(rand.NewPCG(1, 2)), pp: &probeProgress{start: time.Now()}}
			tgt.label = func() string { s, _ := r.pp.current.Load().(string); return s }
			info := tgt.Info()
			r.rec = &record.Record{Target: info}
			var late *checks.Planned
			for _, p := range (checks.Planner{Enabled: map[string]bool{checks.CheckRetryLate: true}, Late: cfg.Late}).Plan(info) {
				if p.Name == "late retry" {
					late = &p
				}
			}
			require.NotNil(t, late, "retry.late plans its probe")
			r.probing(probeLabel(late.Probe))
			pr := r.runProbe(info, late.Probe, late.Serves, 1)
			require.NotNil(t, pr, "the late retry is a tail")
			r.runSteps(info, pr, len(late.Steps)-late.Tail, len(late.Steps))
			require.NoError(t, r.fatal)

			tgt.mu.Lock()
			defer tgt.mu.Unlock()
			require.Equal(t, lateKeys, tgt.returned, "the probe sent late_keys other keys")
			var atRetries, wrong []string
			for i, c := range tgt.calls[1:] { // the first intent's call: nothing to count yet
				if c.retry {
					atRetries = append(atRetries, c.label)
					continue
				}
				m := otherKeysSent.FindStringSubmatch(c.label)
				if m == nil {
					if c.label != "late retry on charge" || c.returned > 0 {
						wrong = append(wrong, fmt.Sprintf("call %d, after %d other keys: %q", i+2, c.returned, c.label))
					}
					continue
				}
				// Sent together, a call may start before another has
				// been counted; one at a time, each is counted before
				// the next.
				if n, _ := strconv.Atoi(m[1]); n > c.returned || !together && n != c.returned || m[2] != strconv.Itoa(lateKeys) {
					wrong = append(wrong, fmt.Sprintf("call %d, after %d other keys: %q", i+2, c.returned, c.label))
				}
			}
			if len(wrong) > 3 {
				wrong = append(wrong[:3], fmt.Sprintf("and %d more", len(wrong)-3))
			}
			assert.Empty(t, wrong, "while the other keys are sent, the line counts those sent so far out of %d", lateKeys)
			require.Len(t, atRetries, 8, "the first intent and those after 1, 2, 4 … 64 others are retried")
			for _, l := range atRetries {
				assert.Equal(t, all, l, "at a late retry, every other key has been sent")
			}
			assert.Equal(t, all, r.pp.current.Load())
		})
	}
}
