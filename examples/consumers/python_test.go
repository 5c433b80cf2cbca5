package consumers_test

import (
	"context"
	"os/exec"
	"path/filepath"
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
	_ "github.com/idemcheck/idemcheck/targets/consumer/brokerset" // the brokers consumer targets start
)

// pythonWithRedis returns a python3 that imports the redis module
// (Debian's python3-redis), or skips the test saying what is missing.
func pythonWithRedis(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, cand := range []string{"python3", "/usr/bin/python3"} {
		exe, err := exec.LookPath(cand)
		if err != nil {
			tried = append(tried, cand+": not found")
			continue
		}
		out, err := exec.Command(exe, "-c", "import redis").CombinedOutput()
		if err == nil {
			return exe
		}
		tried = append(tried, exe+": "+strings.TrimSpace(string(out)))
	}
	t.Skipf("skipping: no python3 with the redis module (apt-get install python3-redis): %s", strings.Join(tried, "; "))
	return ""
}

// pythonSpec is the Python consumer (python/consumer.py) with profile,
// on Redis Streams.
func pythonSpec(t *testing.T, python, profile string) harness.Spec {
	script, err := filepath.Abs(filepath.Join("python", "consumer.py"))
	require.NoError(t, err)
	launch := &consumer.Launch{Command: []string{python, script, "--profile", profile,
		"--url", "{{broker.url}}", "--topic", "{{broker.topic}}", "--group", "{{broker.group}}",
		"--ack-wait", "{{broker.ack_wait}}", "--payments", "{{fakes.payments.url}}",
		"--state", "{{state_dir}}", "--name", "member-{{replica}}"}}
	cfg := consumer.Config{
		Name: "python-redis-" + profile, Broker: redis.Name, AckWait: 500 * time.Millisecond,
		ReadyOutput: "consuming ",
		Events: []consumer.Event{{
			Name:    "charge",
			Payload: `{"amount":{{input.amount}},"customer":"cus_1","description":"order {{marker}}"}`,
			Inputs:  map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 9999}},
		}},
	}
	return consumer.Spec(cfg, launch, func(ctx context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		return payments.New(payments.Options{Ledger: l})
	})
}

// A consumer written in Python, judged like the Go ones: the correct one
// scores 3 with no finding, the one without de-duplication is caught.
func TestPythonConsumerOnRedisStreams(t *testing.T) {
	python := pythonWithRedis(t)
	if _, err := redis.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	for _, tc := range []struct {
		profile string
		score   int
		checks  []string
	}{
		{"correct", 3, nil},
		{"none", 0, []string{"consumer.redelivery", "crash.recovery", "downstream.propagation"}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{pythonSpec(t, python, tc.profile)}, harness.WithSeed(1))
			require.NoError(t, err)
			require.Len(t, res.Targets, 1)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			found := map[string]bool{}
			var lines []string
			for _, f := range tr.Findings {
				found[f.Check] = true
				lines = append(lines, f.Check+" ["+f.Fault+"]: "+f.Message)
			}
			sort.Strings(lines)
			why := strings.Join(lines, "\n")
			require.Equal(t, tc.score, tr.Score.Level, why)
			if tc.checks == nil {
				require.Empty(t, found, why)
			}
			for _, c := range tc.checks {
				require.True(t, found[c], "%s not found:\n%s", c, why)
			}
			require.Equal(t, record.StatusPass, checkStatus(tr, "exactly-once"), why)
		})
	}
}

func checkStatus(tr record.TargetResult, id string) record.Status {
	for _, c := range tr.Checks {
		if c.ID == id {
			return c.Status
		}
	}
	return ""
}
