package consumer_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers/redis"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/targets/consumer"
)

func paymentsFake(ctx context.Context, l *fakes.Ledger) (fakes.Fake, error) {
	return payments.New(payments.Options{Ledger: l})
}

// refSpec is the reference consumer of profile on broker, run as a child
// of the test binary with extra arguments.
func refSpec(broker, profile string, replicas int, extra ...string) harness.Spec {
	return refSpecWith(0, broker, profile, replicas, extra...)
}

// refSpecTimeout is refSpec with one member and an ack timeout.
func refSpecTimeout(timeout time.Duration, broker, profile string, extra ...string) harness.Spec {
	return refSpecWith(timeout, broker, profile, 1, extra...)
}

func refSpecWith(timeout time.Duration, broker, profile string, replicas int, extra ...string) harness.Spec {
	args := append([]string{"--profile", profile, "--broker", broker, "--url", "{{broker.url}}",
		"--topic", "{{broker.topic}}", "--stream", "{{broker.stream}}", "--group", "{{broker.group}}",
		"--ack-wait", "{{broker.ack_wait}}", "--payments", "{{fakes.payments.url}}",
		"--state", "{{state_dir}}", "--name", "member-{{replica}}"}, extra...)
	raw, _ := json.Marshal(args)
	launch := &consumer.Launch{
		Command:  []string{os.Args[0]},
		Env:      map[string]string{childEnv: "1", childArgsEnv: string(raw)},
		Replicas: replicas,
	}
	cfg := consumer.Config{
		Name: broker + "-" + profile, Broker: broker, AckWait: 500 * time.Millisecond, Timeout: timeout,
		ReadyOutput: "consuming ",
		Events: []consumer.Event{{
			Name:    "charge",
			Payload: `{"amount":{{input.amount}},"customer":"cus_1","description":"order {{marker}}"}`,
			Inputs:  map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 9999}},
		}},
	}
	return consumer.Spec(cfg, launch, paymentsFake)
}

// verify runs one spec's probes and returns its result.
func verify(t *testing.T, spec harness.Spec, opts ...harness.Option) record.TargetResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, append([]harness.Option{harness.WithSeed(1)}, opts...)...)
	require.NoError(t, err)
	require.Len(t, res.Targets, 1)
	return res.Targets[0]
}

// checksFound lists the checks with findings, sorted, without repeats.
func checksFound(tr record.TargetResult) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range tr.Findings {
		if !seen[f.Check] {
			seen[f.Check] = true
			out = append(out, f.Check)
		}
	}
	sort.Strings(out)
	return out
}

func describe(tr record.TargetResult) string {
	var b strings.Builder
	b.WriteString("error: " + tr.Error + "\n")
	for _, f := range tr.Findings {
		b.WriteString(f.Check + " [" + f.Fault + "]: " + f.Message + "\n")
	}
	for _, c := range tr.Checks {
		b.WriteString("  " + c.ID + ": " + string(c.Status) + " " + c.Note + "\n")
	}
	return b.String()
}

// Each reference profile on NATS JetStream, judged through the harness:
// the correct one has no finding, and each flawed one is caught by the
// checks its flaw breaks, for the reason it has.
func TestNATSProfiles(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"correct":           nil,
		"mark-first":        {"exactly-once"},
		"check-then-insert": {"consumer.redelivery", "crash.recovery", "downstream.propagation"},
	}
	if !testing.Short() {
		want["memory"] = []string{"crash.recovery", "downstream.propagation"}
		want["ack-first"] = []string{"exactly-once"}
		want["none"] = []string{"consumer.redelivery", "crash.recovery", "downstream.propagation", "retry.late", "retry.sequential"}
	}
	for _, profile := range []string{"correct", "memory", "mark-first", "check-then-insert", "ack-first", "none"} {
		checks, ok := want[profile]
		if !ok {
			continue
		}
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			tr := verify(t, refSpec("nats", profile, 1))
			t.Logf("%s in %s, score %d", profile, time.Since(start).Round(time.Millisecond), tr.Score.Level)
			require.Empty(t, tr.Error)
			if checks == nil {
				require.Empty(t, checksFound(tr), describe(tr))
				return
			}
			// A flaw whose victims depend on timing (the ack-first
			// consumer's ack may not have left before it was killed) may
			// show under more checks; the listed ones always catch it.
			require.Subset(t, checksFound(tr), checks, describe(tr))
		})
	}
}

// A flawed consumer's verdicts are the same in two runs of one seed: a
// burst's copies are all stored and reach the consumer's downstream
// together, whatever the scheduling.
func TestSameSeedSameVerdicts(t *testing.T) {
	t.Parallel()
	profiles := []string{"none", "check-then-insert"}
	if testing.Short() {
		profiles = profiles[:1]
	}
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			verdicts := func() map[string]string {
				tr := verify(t, refSpec("nats", profile, 1))
				require.Empty(t, tr.Error)
				out := map[string]string{}
				for _, c := range tr.Checks {
					out[c.ID] = string(c.Status)
				}
				return out
			}
			first := verdicts()
			require.Equal(t, string(record.StatusFail), first["concurrent.duplicates"], "every copy of a burst is charged")
			require.Equal(t, first, verdicts())
		})
	}
}

// The reference consumer on Redis Streams, judged through the harness:
// the correct one has no finding, the one without de-duplication is
// caught.
func TestRedisProfiles(t *testing.T) {
	t.Parallel()
	if _, err := redis.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	for profile, checks := range map[string][]string{
		"correct": nil,
		"none":    {"consumer.redelivery", "crash.recovery", "downstream.propagation"},
	} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			tr := verify(t, refSpec("redis", profile, 1))
			require.Empty(t, tr.Error)
			if checks == nil {
				require.Empty(t, checksFound(tr), describe(tr))
				return
			}
			require.Subset(t, checksFound(tr), checks, describe(tr))
		})
	}
}
