package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/trialbench"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// buildOrdertool builds the reference CLI tool into a temporary directory
// and returns its path. (The examples test binary cannot run it through
// the hidden subcommand: examples.Main does not dispatch to it.)
func buildOrdertool(tb testing.TB) string {
	tb.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("the Go toolchain is needed to build examples/cli/ordertool: go is not on PATH")
	}
	exe := filepath.Join(tb.TempDir(), "ordertool")
	cmd := exec.Command(goTool, "build", "-o", exe, "github.com/idemcheck/idemcheck/examples/cli/ordertool")
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "go build: %s", out)
	return exe
}

// taggedSpec is the reference tool's spec with a tag in its environment,
// so that a process it leaves behind can be found in /proc.
func taggedSpec(exe, store, tag string) harness.Spec {
	cfg := examples.OrdertoolConfig([]string{exe}, store)
	cfg.Env["ORDERTOOL_TEST_TAG"] = tag
	spec := clitarget.Spec(cfg, examples.OrdertoolSpec(nil, store).Fakes...)
	spec.Options = examples.OrdertoolOptions
	return spec
}

// leftovers returns the pids of live processes whose environment has tag.
func leftovers(t *testing.T, tag string) []int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	require.NoError(t, err)
	var pids []int
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte("ORDERTOOL_TEST_TAG="+tag)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue
		}
		var pid int
		_, _ = fmt.Sscan(filepath.Base(d), &pid)
		pids = append(pids, pid)
	}
	return pids
}

// TestReferenceCLITargets runs the reference CLI tool with each store,
// every invocation a real process, under every default fault, and asserts
// its score and exactly the checks its store's flaws violate: each flaw of
// its pattern is caught by the check meant for it, and the correct store
// has no finding at all.
func TestReferenceCLITargets(t *testing.T) {
	t.Parallel()
	exe := buildOrdertool(t)
	require.Len(t, examples.OrdertoolStores, 4)
	// The fault each flaw must be caught under, by store and check.
	caughtUnder := map[string]map[string][]string{
		"jsonl": {
			"crash.recovery":         {"crash-after-effect"},                             // in_progress is re-run after a crash
			"downstream.propagation": {"downstream-503-after", "downstream-reset-after"}, // no key downstream
		},
		"sqlite": {
			"crash.recovery":         {"crash-after-effect"}, // nothing in progress: a crash leaves no row
			"downstream.propagation": {"downstream-503-after", "downstream-reset-after"},
		},
	}
	for _, st := range examples.OrdertoolStores {
		t.Run(st.Store, func(t *testing.T) {
			t.Parallel()
			tag := fmt.Sprintf("%016x", rand.Uint64())
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second) // a guard against a hang: retry.late runs ~90 processes per store, slow on a loaded machine
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{taggedSpec(exe, st.Store, tag)}, harness.WithSeed(7))
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			for _, f := range tr.Findings {
				t.Logf("%s %s [%s] %s", f.Severity, f.Check, f.Fault, f.Message)
			}
			assert.Equal(t, "cli", tr.Kind)
			assert.Equal(t, st.Failing, failing(tr), st.Flaw)
			assert.Equal(t, st.Built, tr.Score.Level, tr.Score.Reason)
			if st.Store == "correct" {
				assert.Empty(t, tr.Findings, "no false positive on the correct store, under every fault class")
				assert.ElementsMatch(t, []string{"503-before", "lost-response", "reset", "hang", "crash-after-reply", "client-disconnect"}, tr.Record.Unsupported,
					"the faults a command has no transport for")
			}
			for check, want := range caughtUnder[st.Store] {
				var got []string
				for _, f := range tr.Findings {
					if f.Check == check && f.Operation == "create-order" {
						got = append(got, f.Fault)
					}
				}
				assert.ElementsMatch(t, want, got, "%s must be caught by %s", st.Store, check)
			}
			require.Empty(t, leftovers(t, tag), "every invocation's process is gone once the run ends")
		})
	}
}

// TestCLIDemoTargets checks the demo's shape: one target per store,
// started through idemcheck's hidden subcommand.
func TestCLIDemoTargets(t *testing.T) {
	t.Parallel()
	demo := examples.CLIDemo("/usr/local/bin/idemcheck")
	require.Len(t, demo, len(examples.OrdertoolStores))
	for i, d := range demo {
		st := examples.OrdertoolStores[i]
		assert.Equal(t, "ordertool-"+st.Store, d.Spec.Name)
		assert.Equal(t, "cli", d.Spec.Kind)
		assert.Equal(t, st.Built, d.Built)
		assert.Len(t, d.Spec.Fakes, 2, "payments and email")
		cfg := examples.OrdertoolConfig([]string{"/usr/local/bin/idemcheck", examples.Subcommand, examples.OrdertoolName}, st.Store)
		assert.Equal(t, []string{"/usr/local/bin/idemcheck", "__example", "ordertool", "--store", st.Store}, cfg.Command)
	}
}

// BenchmarkTrialsCLI measures generated trials per second against the
// reference CLI tool with the correct store: each of the default four
// workers' trials share their fakes and state directory, and every call
// of a trial is a new process. Each iteration is one trial; the probes'
// time is left out.
func BenchmarkTrialsCLI(b *testing.B) {
	exe := buildOrdertool(b)
	trialbench.Run(b, examples.OrdertoolSpec([]string{exe}, "correct"))
}

// BenchmarkCLICall measures single calls of the reference tool through
// the adapter: fork, exec, a claim in the correct store (an fsynced
// record), one charge at the payments fake, the reply read. It is the
// floor under every CLI trial.
func BenchmarkCLICall(b *testing.B) {
	exe := buildOrdertool(b)
	ctx := context.Background()
	spec := examples.OrdertoolSpec([]string{exe}, "correct")
	ledger := fakes.NewLedger()
	env := &harness.Env{Fakes: map[string]fakes.Fake{}, Ledger: ledger, StateDir: b.TempDir(), RunID: "bench"}
	for _, start := range spec.Fakes {
		f, err := start(ctx, ledger)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		env.Fakes[f.Name()] = f
	}
	tg, err := spec.Start(ctx, env)
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	n := 0
	for b.Loop() {
		n++
		rep := tg.Call(ctx, harness.Call{ID: fmt.Sprintf("b-%d", n), Operation: "create-order", Key: fmt.Sprintf("k-%d", n),
			Marker: fmt.Sprintf("idem-%016x", n), Inputs: map[string]string{"customer": "cus_1", "amount": "100"}})
		if rep.Outcome != harness.OK {
			b.Fatalf("call %d: %s %s", n, rep.Outcome, rep.Error)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "calls/s")
}
