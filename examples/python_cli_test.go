package examples_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
)

// pythonCLIConfig is the configuration of the Python command-line tool
// (cli/python/charges.py) as a user writes it, beside the tool.
const pythonCLIConfig = "cli/python/idemcheck.yaml"

// pythonCLISpec loads the Python tool's configuration with store instead
// of the correct one, as `idemcheck run -c` would, with the system's
// interpreter where there is one rather than the first python3 on PATH: a
// version manager's shim (pyenv) in front of it costs hundreds of
// milliseconds a call, every call a process. It skips without python3.
func pythonCLISpec(tb testing.TB, store string) (harness.Spec, []harness.Option) {
	tb.Helper()
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		if python, err = exec.LookPath("python3"); err != nil {
			tb.Skipf("skipping: no python3 on PATH: %v", err)
		}
	}
	raw, err := os.ReadFile(pythonCLIConfig)
	require.NoError(tb, err)
	text := strings.Replace(string(raw), "--store, correct", "--store, "+store, 1)
	text = strings.Replace(text, "command: [python3, ", "command: ["+python+", ", 1)
	require.Contains(tb, text, "command: ["+python+", ")
	require.Contains(tb, text, "--store, "+store)
	f, err := config.Parse(filepath.FromSlash(pythonCLIConfig), []byte(text))
	require.NoError(tb, err)
	specs, opts, err := f.Specs()
	require.NoError(tb, err)
	require.Len(tb, specs, 1)
	return specs[0], opts
}

// A command-line tool written in Python, configured in YAML as a user
// would: the correct store (an atomic claim in SQLite, the key passed
// downstream) scores 3 with no finding; without a store it is caught.
func TestPythonCLITool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		store   string
		score   int
		failing []string
	}{
		{"correct", 3, nil},
		{"none", 0, []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "dryrun", "key.mismatch", "key.required", "retry.after-fault", "retry.late", "retry.sequential"}},
	} {
		t.Run(tc.store, func(t *testing.T) {
			t.Parallel()
			spec, opts := pythonCLISpec(t, tc.store)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{spec}, append(opts, harness.WithSeed(3), harness.WithTrials(0))...)
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			for _, f := range tr.Findings {
				t.Logf("%s %s: %s", f.Severity, f.Check, f.Message)
			}
			assert.Equal(t, tc.score, tr.Score.Level)
			var failing []string
			for _, c := range tr.Checks {
				if c.Status == harness.StatusFail {
					failing = append(failing, c.ID)
				}
			}
			sort.Strings(failing)
			assert.Equal(t, tc.failing, failing)
		})
	}
}

// BenchmarkPythonCLIDefault measures a default run of the Python tool
// with the correct store, as `idemcheck run -c cli/python/idemcheck.yaml`
// makes it: every probe and default fault, then 25 generated trials
// beside the late retries. Each iteration is one whole run.
func BenchmarkPythonCLIDefault(b *testing.B) {
	spec, opts := pythonCLISpec(b, "correct")
	for i := 0; b.Loop(); i++ {
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, append(opts, harness.WithSeed(uint64(i+1)), harness.WithTrials(25))...)
		if err != nil || res.Targets[0].Error != "" || res.Targets[0].Score.Level != 3 {
			b.Fatalf("unexpected: %v %+v", err, res.Targets[0])
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
}
