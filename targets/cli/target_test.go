package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/process"
)

// echoed is what the helper tool's echo mode reports about its run.
type echoed struct {
	ID   string            `json:"id"`
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
	Dir  string            `json:"dir"`
	PID  int               `json:"pid"`
}

func echoData(t *testing.T, rep harness.Reply) echoed {
	t.Helper()
	var doc struct {
		Data echoed `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep.Body), &doc), rep.Body)
	return doc.Data
}

func TestCallBuildsTheCommandLine(t *testing.T) {
	// Rows: how a call becomes argv. The key flag goes last, as two
	// arguments, only for a mutating operation called with a key.
	rows := []struct {
		why  string
		cfg  func(*clitarget.Config)
		call harness.Call
		want []string
	}{
		{"templates filled, key appended", nil,
			harness.Call{Key: "k-1", Marker: "idem-1", Inputs: map[string]string{"amount": "7"}},
			[]string{"--store", "x", "create", "--memo", "order idem-1", "--amount", "7", "--idempotency-key", "k-1"}},
		{"no key, no key flag", nil,
			harness.Call{Marker: "idem-1", Inputs: map[string]string{"amount": "7"}},
			[]string{"--store", "x", "create", "--memo", "order idem-1", "--amount", "7"}},
		{"dry run appends the dry-run flag", nil,
			harness.Call{Key: "k", Marker: "m", Inputs: map[string]string{"amount": "1"}, DryRun: true},
			[]string{"--store", "x", "create", "--memo", "order m", "--amount", "1", "--idempotency-key", "k", "--dry-run"}},
		{"configured flags", func(c *clitarget.Config) { c.KeyFlag, c.DryRunFlag = "--request-id", "-n" },
			harness.Call{Key: "k", Marker: "m", Inputs: map[string]string{"amount": "1"}, DryRun: true},
			[]string{"--store", "x", "create", "--memo", "order m", "--amount", "1", "--request-id", "k", "-n"}},
		{"a value with spaces and quotes stays one argument", nil,
			harness.Call{Marker: `a "b" c`, Inputs: map[string]string{"amount": "$(rm -rf /)"}},
			[]string{"--store", "x", "create", "--memo", `order a "b" c`, "--amount", "$(rm -rf /)"}},
		{"a safe operation gets no key", nil,
			harness.Call{Operation: "show", Key: "k", Marker: "m"},
			[]string{"--store", "x", "show", "--trace", "m"}},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			cfg := toolConfig("echo")
			if row.cfg != nil {
				row.cfg(&cfg)
			}
			rep := call(t, mustNew(t, cfg), row.call)
			require.Equal(t, harness.OK, rep.Outcome, rep.Error)
			assert.Equal(t, row.want, echoData(t, rep).Args)
		})
	}
}

func TestCallReadsTheReply(t *testing.T) {
	rep := call(t, mustNew(t, toolConfig("echo")), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, harness.OK, rep.Outcome)
	assert.Equal(t, 0, rep.Status)
	assert.True(t, rep.Forwarded)
	assert.True(t, rep.HasEffect)
	assert.Equal(t, "created", rep.Effect)
	assert.Equal(t, "ord_1", rep.Identity)
	assert.Empty(t, rep.Error)
	requireNothingLeft(t)
}

func TestCallConfiguredLocators(t *testing.T) {
	cfg := toolConfig("echo")
	cfg.Effect, cfg.Identity = "data.env.STATE_DIR", "data.args.0"
	cfg.Env["STATE_DIR"] = "/srv/state"
	rep := call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, "/srv/state", rep.Effect)
	assert.Equal(t, "--store", rep.Identity)
}

// Variables of the test's environment that the echo tool reports:
// canaryVar is not passed on to targets, passedVar is named in
// process.SafeEnvVar.
const (
	canaryVar = "IDEMCHECK_TEST_CANARY_TOKEN"
	passedVar = "IDEMCHECK_TEST_PASSED"
)

// TestToolEnvironmentIsBuiltFromTheConfig: a tool gets what its
// configuration sets and the variables of process.Inherited (PATH), those
// named in IDEMCHECK_SAFE_ENV too, and nothing else of idemcheck's
// environment: a token there does not reach it.
func TestToolEnvironmentIsBuiltFromTheConfig(t *testing.T) {
	t.Setenv(canaryVar, "tok_a8f3c2e9d1b4")
	t.Setenv(passedVar, "passed-on")
	t.Setenv(process.SafeEnvVar, os.Getenv(process.SafeEnvVar)+","+passedVar)
	cfg := toolConfig("echo")
	cfg.Env["STATE_DIR"] = "/state"
	got := echoData(t, call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}}))
	assert.Equal(t, "/state", got.Env["STATE_DIR"], "set by the configuration")
	assert.Equal(t, os.Getenv("PATH"), got.Env["PATH"], "inherited")
	assert.Equal(t, "passed-on", got.Env[passedVar], "named in "+process.SafeEnvVar)
	assert.Empty(t, got.Env[canaryVar], "the rest of idemcheck's environment is not passed on")

	// Passed on by the configuration, it does.
	cfg.Env[canaryVar] = os.Getenv(canaryVar)
	got = echoData(t, call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}}))
	assert.Equal(t, "tok_a8f3c2e9d1b4", got.Env[canaryVar])
}

func TestCallEnvironmentAndDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := toolConfig("echo")
	cfg.Dir = dir
	cfg.Env["STATE_DIR"] = "/state"
	rep := call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	got := echoData(t, rep)
	want, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, want, got.Dir)
	assert.Equal(t, "/state", got.Env["STATE_DIR"])
	assert.NotEqual(t, os.Getpid(), got.PID, "the tool runs as its own process")
}

func TestCallOutcomes(t *testing.T) {
	// Rows: every way a run can end, and the outcome and evidence it must
	// give. None of them is an error of the harness.
	rows := []struct {
		mode    string
		outcome harness.Outcome
		status  int
		signal  string
		errHas  string
		bodyHas string
		stderr  string
	}{
		{mode: "garbage", outcome: harness.OK, errHas: "stdout is not the JSON reply {ok, effect, data}", bodyHas: "this is not json"},
		{mode: "logs", outcome: harness.OK},
		{mode: "okfalse", outcome: harness.Fail, errHas: `"ok": false: nothing to do`},
		{mode: "tempfail", outcome: harness.Info, status: 75, errHas: "exit 75: a temporary failure, the tool invites a retry with the same key: payments: HTTP 503"},
		{mode: "refused", outcome: harness.Fail, status: 1, errHas: "exit 1: key_reused", stderr: "key reused"},
		{mode: "crash", outcome: harness.Info, signal: "SIGTERM", errHas: "the tool crashed: killed by SIGTERM; stderr says: fatal: corrupted store", stderr: "corrupted store"},
		{mode: "big", outcome: harness.Info, errHas: "stdout was longer than 1 MiB and was cut: the reply cannot be read whole, so the outcome is unknown"},
	}
	for _, row := range rows {
		t.Run(row.mode, func(t *testing.T) {
			var rep harness.Reply
			tg := mustNew(t, toolConfig(row.mode))
			require.NotPanics(t, func() { rep = call(t, tg, harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}}) })
			assert.Equal(t, row.outcome, rep.Outcome, rep.Error)
			assert.Equal(t, row.status, rep.Status)
			assert.Equal(t, row.signal, rep.ExitSignal)
			assert.True(t, rep.Forwarded)
			if row.errHas == "" {
				assert.Empty(t, rep.Error)
			} else {
				assert.Contains(t, rep.Error, row.errHas)
			}
			assert.Contains(t, rep.Body, row.bodyHas)
			assert.LessOrEqual(t, len(rep.Body), 2048, "the body is a head, for evidence")
			assert.Contains(t, rep.Stderr, row.stderr)
			requireNothingLeft(t)
		})
	}
}

// A safe operation's exit 0 stands when its stdout was cut: no effect is
// read from it, and a long listing is no failure.
func TestCutReplyOfASafeOperationStands(t *testing.T) {
	rep := call(t, mustNew(t, toolConfig("big")), harness.Call{Operation: "show", Marker: "m"})
	assert.Equal(t, harness.OK, rep.Outcome, rep.Error)
	assert.Contains(t, rep.Error, "stdout was longer than 1 MiB and was cut")
	assert.NotContains(t, rep.Error, "the outcome is unknown")
	requireNothingLeft(t)
}

func TestCallLargeIdentityKeepsEveryDigit(t *testing.T) {
	rep := call(t, mustNew(t, toolConfig("logs")), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, "12345678901234567890", rep.Identity, "log lines before the reply are forgiven")
}

func TestCallHangIsKilledAtTheTimeout(t *testing.T) {
	cfg := toolConfig("hang")
	cfg.Timeout = 2 * time.Second // room for the tool to start and print on a loaded machine
	rep := call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Equal(t, "SIGKILL", rep.ExitSignal)
	assert.Contains(t, rep.Error, "no reply within 2s: the tool hung and was killed")
	assert.Equal(t, `{"ok":`, rep.Body, "what it printed is kept as evidence")
	requireNothingLeft(t)
}

func TestNothingOutlivesTheCall(t *testing.T) {
	rep := call(t, mustNew(t, toolConfig("grandchild")), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	var doc struct {
		Data struct {
			Child int `json:"child"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep.Body), &doc))
	require.NotZero(t, doc.Data.Child)
	// SIGKILL was sent before the call returned; the kernel may take a
	// moment to tear the process down (polling /proc: no event to wait on).
	assert.Eventually(t, func() bool { return !alive(doc.Data.Child) }, 5*time.Second, 10*time.Millisecond, "the tool's child outlived the call")
	requireNothingLeft(t)
}

// TestNothingEscapesTheCall: a grandchild that left the tool's process
// group and session (setsid, double fork) and ignores SIGTERM is still
// killed before the call returns.
func TestNothingEscapesTheCall(t *testing.T) {
	rep := call(t, mustNew(t, toolConfig("escape")), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	var doc struct {
		Data struct {
			Child int `json:"child"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep.Body), &doc))
	require.NotZero(t, doc.Data.Child)
	// SIGKILL was sent before the call returned; the kernel may take a
	// moment to tear the process down (polling /proc: no event to wait on).
	assert.Eventually(t, func() bool { return !alive(doc.Data.Child) }, 5*time.Second, 10*time.Millisecond, "the escaped grandchild outlived the call")
	requireNothingLeft(t)
}

func TestCallCancelled(t *testing.T) {
	cfg := toolConfig("hang")
	cfg.Timeout = time.Minute
	tg := mustNew(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan harness.Reply, 1)
	go func() {
		got <- tg.Call(ctx, harness.Call{ID: "r-1-1", Operation: "create", Marker: "m", Inputs: map[string]string{"amount": "1"}})
	}()
	cancel()
	rep := recv(t, got, "Call to return after its context was cancelled")
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Contains(t, rep.Error, "interrupted")
	requireNothingLeft(t)
}

func TestCallUnknownOperationAndTemplates(t *testing.T) {
	tg := mustNew(t, toolConfig("echo"))
	rep := call(t, tg, harness.Call{Operation: "delete"})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, `unknown operation "delete"`)
	rep = call(t, tg, harness.Call{Marker: "m"}) // {{input.amount}} has no value
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "unknown placeholder {{input.amount}}")
	assert.False(t, rep.Forwarded)
}

func TestCallDryRunWithoutADryRunMode(t *testing.T) {
	cfg := toolConfig("echo")
	cfg.NoDryRun = true
	tg := mustNew(t, cfg)
	op, ok := tg.Info().Operation("create")
	require.True(t, ok)
	assert.False(t, op.DryRun)
	rep := call(t, tg, harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}, DryRun: true})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "has no dry-run mode")
}

func TestInfo(t *testing.T) {
	tg := mustNew(t, toolConfig("echo"))
	info := tg.Info()
	assert.Equal(t, "cli", info.Kind)
	assert.Equal(t, "tool", info.Name)
	require.Len(t, info.Operations, 2)
	assert.True(t, info.Operations[0].Mutating)
	assert.True(t, info.Operations[0].DryRun, "the default dry-run flag")
	assert.False(t, info.Operations[1].Mutating)
	assert.False(t, info.Operations[1].DryRun, "a safe operation has no dry run")
	assert.Equal(t, &harness.Capabilities{Keys: true, EffectField: true, DryRun: true}, info.Capabilities, "every check of a keyed API applies to a command-line tool")
	assert.Equal(t, "arguments", info.Request)
}

func TestNewRejects(t *testing.T) {
	// Rows: configurations that cannot work, refused before anything runs.
	rows := []struct {
		why  string
		cfg  func(*clitarget.Config)
		want string
	}{
		{"no command", func(c *clitarget.Config) { c.Command = nil }, "no command"},
		{"no operations", func(c *clitarget.Config) { c.Operations = nil }, "no operations"},
		{"not on PATH", func(c *clitarget.Config) { c.Command = []string{"no-such-tool-xyz"} }, `command "no-such-tool-xyz": not found on PATH`},
		{"missing path", func(c *clitarget.Config) { c.Command = []string{"./no-such-tool"} }, `command "./no-such-tool"`},
		{"a directory", func(c *clitarget.Config) { c.Command = []string{"/tmp/"} }, "is a directory"},
		{"duplicate operation", func(c *clitarget.Config) { c.Operations = append(c.Operations, c.Operations[0]) }, `two operations are called "create"`},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			cfg := toolConfig("echo")
			row.cfg(&cfg)
			_, err := clitarget.New(cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), row.want)
		})
	}
}

func TestNewNotExecutable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tool"), []byte("#!/bin/sh\n"), 0o644))
	cfg := toolConfig("echo")
	cfg.Command, cfg.Dir = []string{"./tool"}, dir
	_, err := clitarget.New(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not executable")
}

func TestRelativeCommandRunsFromDir(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '{\"ok\":true,\"effect\":\"created\",\"data\":{\"id\":\"%s\"}}\\n' \"$(pwd)\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tool.sh"), []byte(script), 0o755))
	cfg := toolConfig("echo")
	cfg.Command, cfg.Dir = []string{"./tool.sh"}, dir
	rep := call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	want, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, want, rep.Identity)
}

func TestCloseRefusesFurtherCalls(t *testing.T) {
	tg, err := clitarget.New(toolConfig("echo"))
	require.NoError(t, err)
	require.NoError(t, tg.Close())
	rep := call(t, tg, harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.False(t, rep.Forwarded)
	assert.True(t, strings.Contains(rep.Error, "closed"), rep.Error)
}

func TestRestartIsANoOp(t *testing.T) {
	tg := mustNew(t, toolConfig("echo"))
	assert.NoError(t, tg.Restart(context.Background()))
	assert.NoError(t, tg.Kill(), "nothing running: nothing to kill")
	rep := call(t, tg, harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, harness.OK, rep.Outcome, "the next call starts the tool afresh")
}
