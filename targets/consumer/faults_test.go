package consumer_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/targets/consumer"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// only is spec tried with the consumer fault named name and no other.
func only(t *testing.T, spec harness.Spec, name string) harness.Spec {
	t.Helper()
	var f faults.Fault
	for _, x := range consumer.Faults() {
		if x.Name() == name {
			f = x
		}
	}
	require.NotNil(t, f, "no fault %s", name)
	spec.Options = append(spec.Options, harness.WithFaults(f))
	return spec
}

// findingsOf returns the checks with a finding under fault name.
func findingsOf(tr record.TargetResult, name string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range tr.Findings {
		if f.Fault == name && !seen[f.Check] {
			seen[f.Check] = true
			out = append(out, f.Check)
		}
	}
	return out
}

// An event published after a later event of its entity: the consumer
// that de-duplicates by event id charges both, the one that keeps a
// high-water mark per entity acknowledges the late one without its
// effect, and is caught losing it.
func TestNATSReorder(t *testing.T) {
	t.Parallel()
	for profile, want := range map[string][]string{
		"correct":         nil,
		"high-water-mark": {"exactly-once"},
	} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			tr := verify(t, only(t, refSpec("nats", profile, 1), consumer.NameReorder))
			require.Empty(t, tr.Error)
			if want == nil {
				require.Empty(t, checksFound(tr), describe(tr))
				return
			}
			require.Subset(t, findingsOf(tr, consumer.NameReorder), want, describe(tr))
		})
	}
}

// The high-water-mark consumer is correct under every other fault: only
// the reorder shows its flaw.
func TestNATSHighWaterMarkOtherwiseCorrect(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every fault")
	}
	spec := refSpec("nats", "high-water-mark", 1)
	var fs []faults.Fault
	for _, f := range consumer.Faults() {
		if f.Name() != consumer.NameReorder {
			fs = append(fs, f)
		}
	}
	spec.Options = append(spec.Options, harness.WithFaults(fs...))
	tr := verify(t, spec)
	require.Empty(t, tr.Error)
	require.Empty(t, checksFound(tr), describe(tr))
}

// A batch of events of one operation, the consumer killed right after
// the effect of the first and restarted, the batch delivered again: the
// correct consumer does not charge again, the ones without durable
// de-duplication do, and are caught under the fault.
func TestBatchCrash(t *testing.T) {
	t.Parallel()
	cases := []struct{ broker, profile string }{
		{"nats", "correct"}, {"nats", "none"}, {"kafka", "correct"}, {"kafka", "memory"},
	}
	for _, c := range cases {
		t.Run(c.broker+"/"+c.profile, func(t *testing.T) {
			t.Parallel()
			tr := verify(t, only(t, refSpec(c.broker, c.profile, 1), consumer.NameBatchCrash))
			require.Empty(t, tr.Error)
			if c.profile == "correct" {
				require.Empty(t, checksFound(tr), describe(tr))
				return
			}
			require.Contains(t, findingsOf(tr, consumer.NameBatchCrash), "consumer.redelivery", describe(tr))
		})
	}
}

// A consumer whose charge comes well after its ack (ack-first, and slow):
// a crash fault armed at the charge must still be armed when the charge
// comes, whatever the time since the ack, so that crash.recovery judges
// the intent rather than calling it unexamined; the slow correct consumer
// acts before its ack, and passes. The wait needs a charge of the event
// seen before (here, retry.sequential's): a run that tries the crashes
// first cannot know the consumer will call at all, does not wait, and
// says why the faults never acted.
func TestCrashAfterLateEffect(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		profile  string
		checks   []string
		want     []string
		examined bool
	}{
		"correct":          {"correct", []string{"retry.sequential", "crash.recovery", "exactly-once"}, nil, true},
		"ack-first":        {"ack-first", []string{"retry.sequential", "crash.recovery", "exactly-once"}, []string{"exactly-once"}, true},
		"ack-first-unseen": {"ack-first", []string{"crash.recovery", "exactly-once"}, nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := refSpec("kafka", tc.profile, 1, "--charge-delay", "600ms")
			var fs []faults.Fault
			for _, x := range consumer.Faults() {
				if x.Name() == faults.NameCrashBeforeEffect || x.Name() == faults.NameCrashAfterEffect {
					fs = append(fs, x)
				}
			}
			require.Len(t, fs, 2)
			spec.Options = append(spec.Options, harness.WithFaults(fs...), harness.WithChecks(tc.checks...))
			tr := verify(t, spec)
			require.Empty(t, tr.Error)
			status := map[string]record.Status{}
			for _, c := range tr.Checks {
				status[c.ID] = c.Status
			}
			if !tc.examined {
				// The first crash's charge comes while the second event
				// waits behind it on the partition, before the run ends;
				// the second's may come after the run.
				assert.Equal(t, record.StatusSkip, status["crash.recovery"], describe(tr))
				late := 0
				for _, u := range tr.NotExamined {
					if u.Check == "crash.recovery" && strings.Contains(u.Reason, "the target answered before it acted") {
						late++
					}
				}
				assert.Positive(t, late, describe(tr))
				return
			}
			for _, u := range tr.NotExamined {
				assert.NotEqual(t, record.CauseUnfired, u.Cause, "not examined: %s [%s]: %s", u.Check, u.Fault, u.Reason)
			}
			assert.NotEqual(t, record.StatusSkip, status["crash.recovery"], describe(tr))
			if tc.want == nil {
				require.Empty(t, checksFound(tr), describe(tr))
				return
			}
			require.Subset(t, checksFound(tr), tc.want, describe(tr))
		})
	}
}

// A retried publish comes once the consumer has acknowledged the first
// copy: the fault tests whether the consumer recognises an event it has
// processed, so the consumer that keeps no record of events is caught
// under it, and the one that checks its record before it inserts (racy
// only when copies are processed at the same time, which bursts test) is
// not, on every run, however many members share the work.
func TestDuplicatePublishComesAfterTheAck(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"none", "check-then-insert"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			spec := only(t, refSpec("nats", profile, 2), consumer.NameDuplicatePublish)
			spec.Options = append(spec.Options, harness.WithChecks("consumer.redelivery"))
			for run := range 2 {
				tr := verify(t, spec)
				require.Empty(t, tr.Error)
				if profile == "check-then-insert" {
					require.Empty(t, findingsOf(tr, consumer.NameDuplicatePublish), "run %d: %s", run+1, describe(tr))
					continue
				}
				require.Contains(t, findingsOf(tr, consumer.NameDuplicatePublish), "consumer.redelivery", describe(tr))
				for _, f := range tr.Findings {
					if f.Fault != consumer.NameDuplicatePublish {
						continue
					}
					_, broker, ok := strings.Cut(f.Message, "what the broker did: attempt 1: ")
					require.True(t, ok, f.Message)
					// Each step of the trace is a kind, then details:
					// "published", "delivered #1 to c1", "acked #1 to c1 (+ACK)".
					var kinds []string
					for _, step := range strings.Split(broker, ", ") {
						kind, _, _ := strings.Cut(step, " ")
						kinds = append(kinds, kind)
					}
					// A publish is recorded when it returns, which may be
					// after the consumer got and acknowledged the event: the
					// first copy's may come after its ack, the second's
					// only after the first ack.
					acked := slices.Index(kinds, "acked")
					last, published := -1, 0
					for i, k := range kinds {
						if k == "published" {
							last, published = i, published+1
						}
					}
					require.True(t, published >= 2 && acked >= 0 && last > acked,
						"the second copy is published after the first is acknowledged: %v", kinds)
				}
			}
		})
	}
}

// TestRebalanceRunsAlone: of the consumer's faults, only a rebalance of
// the group acts beyond the attempt it is armed for (the partition is
// read again from its last committed offset, every event in flight
// there delivered again), so it alone is declared to disrupt the target,
// besides the crashes every target runs alone.
func TestRebalanceRunsAlone(t *testing.T) {
	var tg *consumer.Target
	for _, f := range consumer.Faults() {
		assert.Equal(t, f.Name() == consumer.NameRebalance, tg.DisruptedBy(f), f.Name())
	}
	assert.False(t, tg.DisruptedBy(&faults.Reset{}))
}

// A redelivery fault named for a target that is not a consumer is
// reported unsupported as the broker's, even the one that also kills (a
// batch's crash), which a server idemcheck can kill would otherwise take.
func TestRedeliveryFaultsAreOnlyAConsumers(t *testing.T) {
	reg := faults.NewRegistry()
	consumer.RegisterFaults(reg)
	var fs []faults.Fault
	for _, n := range []string{consumer.NameBatchCrash, consumer.NameLostAck} {
		f, err := reg.New(n, nil)
		require.NoError(t, err)
		fs = append(fs, f)
	}
	handler := func(*harness.Env) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"effect":"created","data":{"id":"x"}}`))
		})
	}
	spec := httptarget.HandlerSpec(httptarget.Config{Name: "api", Operations: []httptarget.Operation{
		{Name: "read", Method: http.MethodGet, Path: "/r?m={{marker}}"}}}, handler)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithFaults(fs...), harness.WithChecks("safe.readonly"))
	require.NoError(t, err)
	rec := res.Targets[0].Record
	require.NotNil(t, rec)
	for _, n := range []string{consumer.NameBatchCrash, consumer.NameLostAck} {
		assert.Contains(t, rec.Unsupported, n)
		assert.Contains(t, rec.UnsupportedWhy[n], "only a consumer target takes it", n)
	}
}
