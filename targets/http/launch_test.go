package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/process"
)

// helperConfig is the adapter config for the helper server (main_test.go).
func helperConfig() httptarget.Config {
	return httptarget.Config{
		Name:    "helper",
		BaseURL: "http://127.0.0.1:{{port}}",
		Operations: []httptarget.Operation{
			{Name: "create", Mutating: true, Path: "/x", Body: `{"marker":"{{marker}}"}`},
			{Name: "whoami", Method: "GET", Path: "/whoami"},
		},
	}
}

// helperLaunch re-executes this test binary as the helper server.
func helperLaunch(mode string) *httptarget.Launch {
	return &httptarget.Launch{
		Command:      []string{os.Args[0]},
		Env:          map[string]string{helperEnv: mode, "PORT": "{{port}}", "STATE_DIR": "{{state_dir}}", "PAY_URL": "{{fakes.pay.url}}"},
		ReadyPath:    "/healthz",
		ReadyTimeout: waitLimit,
	}
}

// stubFake stands for a running fake; start only reads its URL.
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

func startCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	t.Cleanup(cancel)
	return ctx
}

func TestSpecShape(t *testing.T) {
	starter := func(context.Context, *fakes.Ledger) (fakes.Fake, error) { return stubFake{}, nil }
	spec := httptarget.Spec(helperConfig(), nil, starter)
	assert.Equal(t, "helper", spec.Name)
	assert.Equal(t, "http", spec.Kind)
	assert.Len(t, spec.Fakes, 1)
	assert.NotNil(t, spec.Start)
}

func TestSpecLaunchStartsCallsAndStops(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	tg, err := httptarget.Spec(helperConfig(), helperLaunch("1")).Start(startCtx(t), env)
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = tg.Close()
		}
	})

	rep := tg.Call(context.Background(), harness.Call{ID: "r-1-1", Operation: "create", Key: "k", Marker: "idem-1"})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	assert.Equal(t, 201, rep.Status)
	assert.Equal(t, "created", rep.Effect)
	assert.Equal(t, "1", rep.Identity)

	rep = tg.Call(context.Background(), harness.Call{ID: "r-2-1", Operation: "whoami"})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	var who struct {
		Pid   int    `json:"pid"`
		RunID string `json:"run_id"`
		State string `json:"state"`
		Pay   string `json:"pay"`
	}
	require.NoError(t, json.Unmarshal([]byte(rep.Body), &who), rep.Body)
	require.NotZero(t, who.Pid)
	assert.NotEqual(t, os.Getpid(), who.Pid, "the target runs in its own process")
	assert.Equal(t, env.RunID, who.RunID, "IDEMCHECK_RUN_ID marks the process as the run's")
	assert.Equal(t, env.StateDir, who.State, "{{state_dir}} in the environment")
	assert.Equal(t, "http://127.0.0.1:9/pay", who.Pay, "{{fakes.NAME.url}} in the environment")
	require.NoError(t, syscall.Kill(who.Pid, 0), "the target process is alive while the target is open")

	closed = true
	require.NoError(t, tg.Close())
	assert.ErrorIs(t, syscall.Kill(who.Pid, 0), syscall.ESRCH, "the process outlived Close")
	_, err = os.Stat("/proc/" + strconv.Itoa(who.Pid))
	assert.True(t, errors.Is(err, os.ErrNotExist), "the process is still in /proc after Close: %v", err)
}

func TestSpecLaunchThatExitsAtStart(t *testing.T) {
	tg, err := httptarget.Spec(helperConfig(), helperLaunch("exit")).Start(startCtx(t), testEnv(t))
	if tg != nil {
		_ = tg.Close()
	}
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `"helper"`, "names the target")
	assert.Contains(t, msg, "exited before it was ready")
	assert.Contains(t, msg, "exit status 3")
	assert.Contains(t, msg, "helper: fatal: no database at $DATABASE_URL", "shows the process's output")
	var se *process.StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 3, se.ExitCode)
}

func TestSpecLaunchPlaceholderErrors(t *testing.T) {
	// Rows: an unknown placeholder in each templated part of the launch;
	// each must fail before anything is started, naming the part.
	rows := []struct {
		why    string
		change func(*httptarget.Config, *httptarget.Launch)
		want   string
	}{
		{"command", func(_ *httptarget.Config, l *httptarget.Launch) { l.Command = append(l.Command, "--db={{db_url}}") },
			"target helper: start command: unknown placeholder {{db_url}}"},
		{"env", func(_ *httptarget.Config, l *httptarget.Launch) { l.Env["DB"] = "{{fakes.db.url}}" },
			"target helper: start env DB: unknown placeholder {{fakes.db.url}}"},
		{"dir", func(_ *httptarget.Config, l *httptarget.Launch) { l.Dir = "{{work_dir}}" },
			"target helper: start dir: unknown placeholder {{work_dir}}"},
		{"base URL", func(c *httptarget.Config, _ *httptarget.Launch) { c.BaseURL = "http://{{host}}:{{port}}" },
			"target helper: url: unknown placeholder {{host}}"},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			cfg, launch := helperConfig(), helperLaunch("1")
			row.change(&cfg, launch)
			tg, err := httptarget.Spec(cfg, launch).Start(startCtx(t), testEnv(t))
			if tg != nil {
				_ = tg.Close()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), row.want)
		})
	}
}

func TestSpecWithoutLaunchUsesARunningTarget(t *testing.T) {
	srv := newServer(t, nil, nil)
	cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
	tg, err := httptarget.Spec(cfg, nil).Start(startCtx(t), testEnv(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	rep := tg.Call(context.Background(), harness.Call{ID: "r-1-1", Operation: "create"})
	assert.Equal(t, harness.OK, rep.Outcome, rep.Error)
}

// TestStartWithoutLaunchChecksTheURL: a target idemcheck does not start
// must answer at its URL, or the start says that nothing answers there
// and how to fix it; one that answers starts.
func TestStartWithoutLaunchChecksTheURL(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()

	cfg := helperConfig()
	cfg.BaseURL = "http://" + addr
	tgt, err := httptarget.Spec(cfg, nil).Start(context.Background(), testEnv(t))
	require.NoError(t, err, "something listens there")
	require.NoError(t, tgt.Close())

	require.NoError(t, l.Close())
	_, err = httptarget.Spec(cfg, nil).Start(context.Background(), testEnv(t))
	require.Error(t, err, "nothing listens there any more")
	assert.Contains(t, err.Error(), "nothing answers at http://"+addr)
	assert.Contains(t, err.Error(), "give the target a start: command")
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "the cause is kept: %v", err)
}

// TestStartWithoutLaunchChecksTheCertificate: a target idemcheck does not
// start, at an https:// URL, must also complete the TLS handshake its calls
// will make: a certificate the system's roots do not vouch for is said
// before the run, with how to trust it.
func TestStartWithoutLaunchChecksTheCertificate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	cfg := helperConfig()
	cfg.BaseURL = srv.URL
	_, err := httptarget.Spec(cfg, nil).Start(context.Background(), testEnv(t))
	require.Error(t, err, "the test server's certificate is its own")
	assert.Contains(t, err.Error(), "the TLS handshake with "+srv.URL+" failed")
	assert.Contains(t, err.Error(), "SSL_CERT_FILE")
}

// TestDownSaysWhenTheServerExitedByItself: a server that exits without
// being asked is down, saying how it ended and what it printed; one the
// harness killed is not, nor is it once restarted.
func TestDownSaysWhenTheServerExitedByItself(t *testing.T) {
	t.Parallel()
	launch := helperLaunch("die-after")
	launch.Env["DIE_AFTER"] = "2"
	tg, err := httptarget.Spec(helperConfig(), launch).Start(startCtx(t), testEnv(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	ht := tg.(*httptarget.Target)
	assert.Empty(t, ht.Down(), "running")
	for i := range 2 {
		_ = tg.Call(context.Background(), harness.Call{ID: fmt.Sprintf("r-%d-1", i), Operation: "create", Key: fmt.Sprint(i)})
	}
	deadline := time.Now().Add(waitLimit)
	for ht.Down() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling an exit with a deadline
	}
	down := ht.Down()
	assert.Contains(t, down, "exited by itself (exit status 0)")
	assert.Contains(t, down, "helper: served my last request")
	assert.Contains(t, down, "nothing accepts connections at 127.0.0.1:", "an exit with success, and nothing listens")

	require.NoError(t, ht.Restart(startCtx(t)))
	assert.Empty(t, ht.Down(), "restarted")
	require.NoError(t, ht.Kill())
	assert.Empty(t, ht.Down(), "killed by the harness, as a crash fault does")
}

// TestAServerThatStopsEndsTheRun: a server that exits by itself in the
// middle of the probes makes the target untestable at once, saying so,
// instead of every later call failing and being judged as its answer.
func TestAServerThatStopsEndsTheRun(t *testing.T) {
	t.Parallel()
	launch := helperLaunch("die-after")
	launch.Env["DIE_AFTER"] = "30"
	delete(launch.Env, "PAY_URL") // no fake in this run
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{httptarget.Spec(helperConfig(), launch)}, harness.WithSeed(3), harness.WithTrials(0))
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.Contains(t, tr.Error, "the target stopped by itself")
	assert.Contains(t, tr.Error, "exited by itself (exit status 0)")
	assert.Empty(t, tr.Findings, "nothing is judged of a server that is gone")
}

// TestALauncherThatReturnsIsNotDown: a start command that starts the
// server outside its process group and returns with success (as docker
// compose up -d does) leaves a target that answers: its probes all run,
// and nothing says it stopped.
func TestALauncherThatReturnsIsNotDown(t *testing.T) {
	t.Parallel()
	launch := helperLaunch("launch")
	delete(launch.Env, "PAY_URL")
	state := t.TempDir()
	launch.Env["STATE_DIR"] = state
	t.Cleanup(func() { // the servers the launcher started, outside the harness's reach
		b, _ := os.ReadFile(filepath.Join(state, "server.pid"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{httptarget.Spec(helperConfig(), launch)}, harness.WithSeed(3), harness.WithTrials(0))
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.NotContains(t, tr.Error, "stopped by itself")
	attempts := 0
	for _, in := range tr.Record.Intents {
		attempts += len(in.Attempts)
	}
	assert.Greater(t, attempts, 50, "the probes ran to their end")
}

// TestATargetThatStopsListeningEndsTheRun: a target idemcheck did not
// start that stops accepting connections once it has answered ends the
// run of its probes, saying so, instead of every later call being judged
// as its answer (an intent that "never succeeded", a burst that "never
// completed").
func TestATargetThatStopsListeningEndsTheRun(t *testing.T) {
	var (
		mu   sync.Mutex
		n    int
		srv  *httptest.Server
		once sync.Once
	)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"effect":"created","data":{"id":"1"}}`)
		mu.Lock()
		n++
		stop := n >= 25
		mu.Unlock()
		if stop {
			once.Do(func() { go srv.Close() })
		}
	}))
	t.Cleanup(srv.Close)
	cfg := helperConfig()
	cfg.BaseURL = srv.URL
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{httptarget.Spec(cfg, nil)}, harness.WithSeed(3), harness.WithTrials(0))
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.Contains(t, tr.Error, "the target stopped accepting connections after it had answered")
	assert.Empty(t, tr.Findings, "nothing is judged of a target that is gone")
}
