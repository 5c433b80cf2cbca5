package harness_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// plainShop is the correct key store of lruShop with two flaws the fixed
// probes find by themselves: no dry run, and replies that never say what
// they did (no effect field).
type plainShop struct{ *lruShop }

func (s plainShop) Info() harness.TargetInfo {
	info := s.lruShop.Info()
	info.Name = "plain"
	info.Operations[0].DryRun = false
	return info
}

func (s plainShop) Call(ctx context.Context, c harness.Call) harness.Reply {
	rep := s.lruShop.Call(ctx, c)
	rep.Effect, rep.HasEffect = "", false
	return rep
}

func plainSpec(capacity int) harness.Spec {
	return harness.Spec{Name: "plain", Kind: "func", Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
		return plainShop{&lruShop{ledger: env.Ledger, capacity: capacity, cache: map[string]harness.Reply{}, inputs: map[string]string{}}}, nil
	}}
}

// TestTrialsDoNotRestateProbeFindings: the missing dry run and effect field
// are found once, by the probes; the generated trials, which would show
// them again in every trial, report nothing of their own.
func TestTrialsDoNotRestateProbeFindings(t *testing.T) {
	t.Parallel()
	tr := verifyTarget(t, context.Background(), plainSpec(0), harness.WithSeed(4), harness.WithTrials(100))
	seen := map[string]int{}
	for _, f := range tr.Findings {
		assert.False(t, f.Trial, "a trial restated a probe finding: %s %s", f.Check, f.Message)
		seen[f.Check+"/"+f.Operation+"/"+f.Fault]++
	}
	assert.Equal(t, 1, seen[harness.CheckDryRun+"/charge/"], "the missing dry run, once: %v", seen)
	assert.Positive(t, seen[harness.CheckEffectField+"/charge/"], "the missing effect field: %v", seen)
	require.NotNil(t, tr.Scenario)
	assert.Nil(t, tr.Scenario.Counterexample, "no trial failed on a known finding: %v", tr.Scenario.Findings)
	assert.Equal(t, 100, tr.Scenario.Trials)
}

// TestTrialsStillReportWhatOnlyTheyFind: with the same probe-found flaws, a
// two-entry key cache is still found by the trials, and only the eviction
// is their finding.
func TestTrialsStillReportWhatOnlyTheyFind(t *testing.T) {
	t.Parallel()
	tr := verifyTarget(t, context.Background(), plainSpec(2), harness.WithSeed(3), harness.WithTrials(300))
	require.NotNil(t, tr.Scenario)
	require.NotNil(t, tr.Scenario.Counterexample, "300 trials find the eviction")
	var trial []string
	for _, f := range tr.Findings {
		if f.Trial {
			trial = append(trial, f.Check)
		}
	}
	assert.Equal(t, []string{harness.CheckRetrySequential}, trial)
	t.Logf("counterexample:\n%s", tr.Scenario.Counterexample)
}

// TestCheckTrialsSubtestIgnoresProbeFindings runs harness.Check in a child
// test binary (its probe subtests fail, by design) and reads the verdicts:
// the dryrun subtest fails, the trials subtest passes on the correct key
// store and fails on the two-entry cache.
func TestCheckTrialsSubtestIgnoresProbeFindings(t *testing.T) {
	if os.Getenv("IDEMCHECK_CHILD_CAPACITY") != "" {
		return
	}
	for _, c := range []struct{ capacity, trials string }{{"0", "PASS"}, {"2", "FAIL"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildCheck$", "-test.v", "-rapid.nofailfile")
		cmd.Env = append(os.Environ(), "IDEMCHECK_CHILD_CAPACITY="+c.capacity)
		out, _ := cmd.CombinedOutput()
		verdict := func(sub string) string {
			m := regexp.MustCompile(`--- (PASS|FAIL|SKIP): TestChildCheck/` + sub + ` `).FindSubmatch(out)
			require.NotNil(t, m, "capacity %s: no verdict for %s in:\n%s", c.capacity, sub, out)
			return string(m[1])
		}
		assert.Equal(t, "FAIL", verdict(harness.CheckDryRun), "capacity %s", c.capacity)
		assert.Equal(t, c.trials, verdict("trials"), "capacity %s:\n%s", c.capacity, out)
	}
}

// TestChildCheck is run only as the child of the test above.
func TestChildCheck(t *testing.T) {
	t.Parallel()
	capacity := os.Getenv("IDEMCHECK_CHILD_CAPACITY")
	if capacity == "" {
		t.Skip("run by TestCheckTrialsSubtestIgnoresProbeFindings")
	}
	n := 0
	if capacity == "2" {
		n = 2
	}
	harness.Check(t, plainSpec(n), harness.WithSeed(3), harness.WithTrials(300), harness.WithMinScore(0))
}
