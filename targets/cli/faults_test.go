package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

func TestSupports(t *testing.T) {
	tg := mustNew(t, toolConfig("echo"))
	want := map[string]bool{
		faults.NameClientTimeout:          true,
		faults.NameDownstreamFailBefore:   true,
		faults.NameDownstreamFailAfter:    true,
		faults.NameDownstreamResetAfter:   true,
		faults.NameDownstreamTimeoutAfter: true,
		faults.NameCrashBeforeEffect:      true,
		faults.NameCrashAfterEffect:       true,
		// These need a transport between client and target.
		faults.NameUnavailableBefore: false,
		faults.NameLostResponse:      false,
		faults.NameReset:             false,
		faults.NameLatency:           false,
		faults.NameHang:              false,
		faults.NameCrashAfterReply:   false,
		// A command has no connection to leave.
		faults.NameClientDisconnect: false,
		// A command can be killed while its database commits.
		faults.NameCrashBeforeCommit: true,
		faults.NameCrashAfterCommit:  true,
		// A dependency's faults are its proxy's, not the adapter's.
		faults.NameDepError:            false,
		faults.NameDepRefuse:           false,
		faults.NameDepResetAfterCommit: false,
		faults.NameDepStall:            false,
	}
	for _, name := range faults.Builtin().Names() {
		w, ok := want[name]
		require.True(t, ok, "a new built-in fault %q: say whether the CLI adapter supports it", name)
		assert.Equal(t, w, tg.Supports(mustFault(t, name, nil)), name)
	}
	assert.True(t, tg.Supports(clientOnly{}), "a client fault defined outside the package")
}

// clientOnly is a client fault without a proxy half, as a user may write.
type clientOnly struct{}

func (clientOnly) Name() string                 { return "impatient" }
func (clientOnly) ClientTimeout() time.Duration { return 50 * time.Millisecond }

func TestClientTimeoutWithholdsTheReplyOfAFastTool(t *testing.T) {
	// The tool finishes well within the timeout, but the client has given
	// up: as behind the HTTP proxy, the reply is lost.
	rep := call(t, mustNew(t, toolConfig("echo")), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"},
		Fault: mustFault(t, faults.NameClientTimeout, map[string]any{"timeout": "5s"})})
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.True(t, rep.Withheld)
	assert.True(t, rep.Forwarded)
	assert.False(t, rep.HasEffect, "the effect field went with the reply")
	assert.Empty(t, rep.Identity)
	assert.Contains(t, rep.Error, "the client gave up after 5s (client-timeout); the tool ran to the end (exit 0)")
}

// The client that gives up leaves the tool running, as the fault proxy
// leaves an HTTP target: whether it had done its work by then is never a
// matter of timing. A tool that outlives the target's own timeout is
// killed then.
func TestClientTimeoutLetsTheToolRunToTheTargetsTimeout(t *testing.T) {
	cfg := toolConfig("hang")
	cfg.Timeout = 300 * time.Millisecond
	rep := call(t, mustNew(t, cfg), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"},
		Fault: mustFault(t, faults.NameClientTimeout, map[string]any{"timeout": "100ms"})})
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Equal(t, "SIGKILL", rep.ExitSignal)
	assert.Contains(t, rep.Error, "no reply within 300ms: the tool hung and was killed")
	assert.Contains(t, rep.Error, "(its client had given up after 100ms, client-timeout)")
	requireNothingLeft(t)
}

func TestDownstreamFaultLeavesTheCallAlone(t *testing.T) {
	// The harness arms downstream faults in the fakes; the adapter only
	// runs the tool.
	rep := call(t, mustNew(t, toolConfig("echo")), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"},
		Fault: mustFault(t, faults.NameDownstreamFailAfter, nil)})
	assert.Equal(t, harness.OK, rep.Outcome)
	assert.False(t, rep.Withheld)
}

// downstream stands for a fake: the helper tool in "call" mode POSTs its
// pid to it, and onCall runs inside the handler, as the harness's crash
// faults run inside the fake's.
type downstream struct {
	srv    *httptest.Server
	mu     sync.Mutex
	pids   []int
	onCall func(pid int)
}

func (d *downstream) setOnCall(fn func(pid int)) {
	d.mu.Lock()
	d.onCall = fn
	d.mu.Unlock()
}

func newDownstream(t *testing.T, onCall func(pid int)) *downstream {
	d := &downstream{onCall: onCall}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var got struct {
			PID int `json:"pid"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got)
		d.mu.Lock()
		d.pids = append(d.pids, got.PID)
		fn := d.onCall
		d.mu.Unlock()
		if fn != nil {
			fn(got.PID)
		}
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func TestKillCrashesTheRunningInvocation(t *testing.T) {
	var tg atomic.Pointer[clitarget.Target]
	type killed struct {
		err   error
		alive bool
	}
	done := make(chan killed, 1)
	d := newDownstream(t, func(pid int) {
		// The crash point: the downstream has the request, the tool waits
		// for the reply. Kill must return only once the tool is dead.
		err := tg.Load().Kill()
		done <- killed{err, alive(pid)}
	})
	tg.Store(mustNew(t, withEnv(toolConfig("call"), "TOOL_URL", d.srv.URL)))
	rep := call(t, tg.Load(), harness.Call{Marker: "m", Inputs: map[string]string{"amount": "1"}})
	k := recv(t, done, "the kill")
	require.NoError(t, k.err)
	assert.False(t, k.alive, "Kill returned before the tool was dead")
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Equal(t, "SIGKILL", rep.ExitSignal)
	assert.Contains(t, rep.Error, "the harness killed the tool's process group (crash fault) before it replied")
	require.NoError(t, tg.Load().Restart(context.Background()))
	d.setOnCall(nil)
	rep = call(t, tg.Load(), harness.Call{ID: "run-1-2", Marker: "m", Inputs: map[string]string{"amount": "1"}})
	assert.Equal(t, harness.OK, rep.Outcome, "after the crash the next call runs the tool afresh")
	requireNothingLeft(t)
}

func withEnv(cfg clitarget.Config, k, v string) clitarget.Config {
	env := map[string]string{}
	for a, b := range cfg.Env {
		env[a] = b
	}
	env[k] = v
	cfg.Env = env
	return cfg
}

func TestBurstStartsEveryCopy(t *testing.T) {
	const n = 8
	d := newDownstream(t, nil)
	tg := mustNew(t, withEnv(toolConfig("call"), "TOOL_URL", d.srv.URL))
	got := make(chan []harness.Reply, 1)
	go func() {
		got <- tg.Burst(context.Background(), harness.Call{ID: "b", Operation: "create", Key: "k", Marker: "m", Inputs: map[string]string{"amount": "1"}}, n)
	}()
	reps := recv(t, got, "the burst to end")
	require.Len(t, reps, n)
	pids := map[int]bool{}
	for i, rep := range reps {
		require.Equal(t, harness.OK, rep.Outcome, "copy %d: %s", i, rep.Error)
		pids[echoData(t, rep).PID] = true
		assert.Equal(t, []string{"--store", "x", "create", "--memo", "order m", "--amount", "1", "--idempotency-key", "k"}, echoData(t, rep).Args,
			"the gate is invisible to the tool")
	}
	assert.Len(t, pids, n, "one process per copy")
	d.mu.Lock()
	assert.Len(t, d.pids, n, "every copy reached the downstream once")
	d.mu.Unlock()
	requireNothingLeft(t)
}

func TestBurstOfAToolThatCannotStart(t *testing.T) {
	tg := mustNew(t, toolConfig("echo"))
	reps := tg.Burst(context.Background(), harness.Call{Operation: "nope"}, 3)
	require.Len(t, reps, 3)
	for _, rep := range reps {
		assert.Equal(t, harness.Fail, rep.Outcome)
		assert.Contains(t, rep.Error, "unknown operation")
	}
}
