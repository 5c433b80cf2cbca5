package cli_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// stubFake stands for a running fake; Spec only reads its URL.
type stubFake struct{ url string }

func (stubFake) Name() string          { return "pay" }
func (s stubFake) URL() string         { return s.url }
func (stubFake) Ledger() *fakes.Ledger { return nil }
func (stubFake) Arm(fakes.Rule)        {}
func (stubFake) Disarm()               {}
func (stubFake) DisarmMarker(string)   {}
func (stubFake) Close() error          { return nil }

func testEnv(t *testing.T) *harness.Env {
	return &harness.Env{
		Fakes:    map[string]fakes.Fake{"pay": stubFake{url: "http://127.0.0.1:9/pay"}},
		StateDir: t.TempDir(),
		RunID:    "0123456789abcdef",
	}
}

func TestSpecFillsPlaceholders(t *testing.T) {
	cfg := toolConfig("echo")
	cfg.Command = append(cfg.Command, "--state-dir", "{{state_dir}}", "--port", "{{port}}")
	cfg.Env["STATE_DIR"] = "{{state_dir}}"
	cfg.Env["PAY_URL"] = "{{fakes.pay.url}}"
	cfg.Dir = "{{state_dir}}"
	spec := clitarget.Spec(cfg)
	assert.Equal(t, "cli", spec.Kind)
	assert.Equal(t, "tool", spec.Name)
	env := testEnv(t)
	tg, err := spec.Start(context.Background(), env)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	rep := call(t, tg, harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	got := echoData(t, rep)
	assert.Equal(t, []string{"--store", "x", "--state-dir", env.StateDir, "--port"}, got.Args[:5])
	assert.NotEqual(t, "{{port}}", got.Args[5], "a free port")
	assert.Equal(t, env.StateDir, got.Env["STATE_DIR"])
	assert.Equal(t, "http://127.0.0.1:9/pay", got.Env["PAY_URL"])
	assert.Equal(t, env.RunID, got.Env["IDEMCHECK_RUN_ID"], "leftovers can be found by run id")
	assert.Equal(t, env.StateDir, got.Dir)
}

func TestSpecPlaceholderErrors(t *testing.T) {
	// Rows: an unknown placeholder in each templated part; each must fail
	// before anything runs, naming the part.
	rows := []struct {
		why    string
		change func(*clitarget.Config)
		want   string
	}{
		{"command", func(c *clitarget.Config) { c.Command = append(c.Command, "--db={{db_url}}") },
			"target tool: command: unknown placeholder {{db_url}}"},
		{"env", func(c *clitarget.Config) { c.Env["DB"] = "{{fakes.db.url}}" },
			"target tool: env DB: unknown placeholder {{fakes.db.url}}"},
		{"dir", func(c *clitarget.Config) { c.Dir = "{{work_dir}}" },
			"target tool: dir: unknown placeholder {{work_dir}}"},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			cfg := toolConfig("echo")
			row.change(&cfg)
			_, err := clitarget.Spec(cfg).Start(context.Background(), testEnv(t))
			require.Error(t, err)
			assert.Contains(t, err.Error(), row.want)
		})
	}
}

// TestVerifyMisbehavingTools runs the whole harness against tools that
// misbehave: each gets a clear finding or a clear reason why it could not
// be tested, never a panic or a hang.
func TestVerifyMisbehavingTools(t *testing.T) {
	rows := []struct {
		mode string
		// err is the reason the target could not be tested, or "".
		err string
		// check is the check that must report it, when it could be tested.
		check, message string
	}{
		// Garbage on stdout with exit 0 is acknowledged, and nothing (no
		// fake, no observer) could count an effect: untestable, not judged.
		{mode: "garbage", err: "no effect could be attributed: the target acknowledged 1 mutating intent"},
		{mode: "hang", err: "create never succeeded in 2 attempts (last: no reply within 200ms: the tool hung and was killed"},
		{mode: "crash", err: "create never succeeded in 2 attempts (last: the tool crashed: killed by SIGTERM; stderr says: fatal: corrupted store)"},
	}
	for _, row := range rows {
		t.Run(row.mode, func(t *testing.T) {
			cfg := toolConfig(row.mode)
			cfg.Name = row.mode
			// Only the hanging tool meets the short timeout; the others get
			// time to start even on a loaded machine.
			cfg.Timeout = 10 * time.Second
			if row.mode == "hang" {
				cfg.Timeout = 200 * time.Millisecond
			}
			cfg.Operations = cfg.Operations[:1]
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{clitarget.Spec(cfg)}, harness.WithSeed(1),
				harness.WithFaults(), harness.WithChecks(harness.CheckRetrySequential, harness.CheckEffectField, harness.CheckExactlyOnce))
			require.NoError(t, err)
			tr := res.Targets[0]
			if row.err != "" {
				assert.Contains(t, tr.Error, row.err)
				return
			}
			require.Empty(t, tr.Error)
			var msgs []string
			for _, f := range tr.Findings {
				if f.Check == row.check {
					msgs = append(msgs, f.Message)
				}
			}
			require.NotEmpty(t, msgs, "no %s finding in %+v", row.check, tr.Findings)
			assert.Contains(t, msgs[0], row.message)
		})
	}
	requireNothingLeft(t)
}
