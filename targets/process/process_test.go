package process_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/targets/process"
)

// Deadlines for waits on events. They only bound a wait that would otherwise
// hang a broken implementation; no assertion depends on timing.
const (
	testDeadline = 60 * time.Second
	eventTimeout = 20 * time.Second
)

// tokenEnv marks every helper process (and its descendants, which inherit
// it) so a test can find any it left behind by scanning /proc.
const tokenEnv = "IDEMCHECK_PROCESS_TEST_TOKEN"

var tokenSeq atomic.Int64

// helper is a spec for the test binary re-executed in a helper mode.
type helper struct {
	spec  process.Spec
	port  int
	token string
}

func (h helper) url(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", h.port, path)
}

// newHelper builds the spec of a helper in mode, ready when /healthz answers.
func newHelper(t *testing.T, mode string) helper {
	t.Helper()
	port, err := process.FreePort()
	require.NoError(t, err)
	token := fmt.Sprintf("%d-%d", os.Getpid(), tokenSeq.Add(1))
	h := helper{port: port, token: token}
	h.spec = process.Spec{
		Name:    "helper-" + mode,
		Command: []string{os.Args[0]},
		Env: []string{
			helperEnv + "=" + mode,
			"PORT=" + strconv.Itoa(port),
			tokenEnv + "=" + token,
		},
		// A generous bound: a race-enabled binary can take seconds to start
		// on a loaded machine. Tests about timeouts set their own.
		Ready: process.Ready{URL: h.url("/healthz"), Timeout: testDeadline / 2},
	}
	return h
}

// testContext is the context for calls that block: cancelled when the test
// ends, with a deadline that only stops a hang.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

// mustStart starts h and stops it when the test ends.
func mustStart(t *testing.T, h helper) *process.Process {
	t.Helper()
	p, err := process.Start(testContext(t), h.spec)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, p.Stop(context.Background()))
		assert.Empty(t, liveWithToken(t, h.token), "processes left behind")
	})
	return p
}

// get fetches url with a fresh client that keeps no connection (and so no
// goroutine) behind.
func get(url string, timeout time.Duration) (string, error) {
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: timeout}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return string(body), fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), nil
}

func mustGet(t *testing.T, url string) string {
	t.Helper()
	body, err := get(url, eventTimeout)
	require.NoError(t, err)
	return body
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(eventTimeout):
		t.Fatalf("%s: not closed after %v", what, eventTimeout)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// reaped reports whether our child pid has been reaped (signal 0 finds
// nothing).
func reaped(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// alive reports whether pid is a live process; a zombie waiting for its
// reaper is not (it is dead, and it is init's to reap, not ours).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// liveWithToken lists the live processes whose environment carries token.
func liveWithToken(t *testing.T, token string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err, "these tests need /proc")
	want := []byte(tokenEnv + "=" + token + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) || !alive(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

func TestStartWaitsForReadinessAndStopEndsIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		ready func(h helper) process.Ready
	}{
		{"HTTP URL answers", func(h helper) process.Ready { return process.Ready{URL: h.url("/healthz")} }},
		{"TCP address accepts", func(h helper) process.Ready {
			return process.Ready{Addr: fmt.Sprintf("127.0.0.1:%d", h.port)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHelper(t, "http")
			h.spec.Ready = tt.ready(h)
			h.spec.Ready.Timeout = testDeadline / 2
			p, err := process.Start(testContext(t), h.spec)
			require.NoError(t, err)
			pid := p.Pid()
			assert.Positive(t, pid)

			assert.Equal(t, "ok", mustGet(t, h.url("/healthz")), "Start returned, so it must answer")

			require.NoError(t, p.Stop(testContext(t)))
			assert.True(t, isClosed(p.Exited()), "Exited is closed once Stop returns")
			assert.True(t, reaped(pid), "pid %d still exists after Stop", pid)
			assert.NoError(t, p.Stop(testContext(t)), "Stop is idempotent")
			assert.Contains(t, p.Output(), "listening on", "Output holds what the helper printed")
			assert.Empty(t, liveWithToken(t, h.token))
		})
	}
}

func TestStartReportsExitBeforeReadyAtOnce(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "exit3")
	// Were Start to wait for the ready timeout, the context would end
	// first and the error would not be a StartError.
	h.spec.Ready.Timeout = time.Hour

	p, err := process.Start(testContext(t), h.spec)
	require.Error(t, err)
	assert.Nil(t, p)

	var se *process.StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "helper-exit3", se.Name)
	assert.Equal(t, "exited before it was ready", se.Reason)
	assert.Equal(t, 3, se.ExitCode)
	assert.Contains(t, se.Output, "config file shop.toml not found")

	msg := err.Error()
	for _, want := range []string{
		`"helper-exit3"`, "exited before it was ready", "exit status 3", // what was seen
		"expected a 2xx reply to GET " + h.url("/healthz"),       // what was expected
		"| helper exit3: fatal: config file shop.toml not found", // its output
		"hint: ", // what to do
	} {
		assert.Contains(t, msg, want)
	}
	assert.Empty(t, liveWithToken(t, h.token))
}

// TestStartWaitsOutAWarmingUp503: a server that answers its ready path 503
// while it loads is not ready until the path answers 2xx.
func TestStartWaitsOutAWarmingUp503(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "warm")
	p, err := process.Start(testContext(t), h.spec)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop(context.Background()) })

	assert.Equal(t, strconv.Itoa(warmupProbes), mustGet(t, h.url("/warmups")),
		"Start returned only after every warming-up 503 was seen")
	assert.Equal(t, "ok", mustGet(t, h.url("/healthz")))
	require.NoError(t, p.Stop(testContext(t)))
	assert.Empty(t, liveWithToken(t, h.token))
}

// TestStartRefusesAReadyPathThatNeverAnswers2xx: a ready URL that answers
// 404 for ever (a wrong path) is never ready: the wait ends at the timeout
// with an error that names the status, and the server is killed. The URL
// is served here, so it answers from the first probe on.
func TestStartRefusesAReadyPathThatNeverAnswers2xx(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "hang")
	var probes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	h.spec.Ready = process.Ready{URL: srv.URL + "/no-such-page", Timeout: 300 * time.Millisecond}

	p, err := process.Start(testContext(t), h.spec)
	require.Error(t, err)
	assert.Nil(t, p)
	assert.Positive(t, probes.Load(), "the ready URL was probed")

	var se *process.StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, -1, se.ExitCode, "it was still running")
	assert.Equal(t, "not ready after 300ms: GET "+srv.URL+"/no-such-page answered 404 Not Found, not a 2xx", se.Reason)
	assert.Contains(t, err.Error(), "expected a 2xx reply to GET "+srv.URL+"/no-such-page")
	assert.Empty(t, liveWithToken(t, h.token), "the server must be killed")
}

func TestStartTimesOutAndKills(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "hang")
	h.spec.Ready = process.Ready{Addr: fmt.Sprintf("127.0.0.1:%d", h.port), Timeout: 300 * time.Millisecond}

	p, err := process.Start(testContext(t), h.spec)
	require.Error(t, err)
	assert.Nil(t, p)

	var se *process.StartError
	require.ErrorAs(t, err, &se)
	assert.True(t, strings.HasPrefix(se.Reason, "not ready after 300ms: "), "reason: %q", se.Reason)
	// Usually "connection refused"; on a starved machine the first dial may
	// itself run out of time. Either way it names what was probed.
	assert.Contains(t, se.Reason, h.spec.Ready.Addr, "the reason carries the last probe error")
	assert.Equal(t, -1, se.ExitCode, "it was still running")
	assert.Contains(t, err.Error(), "start.ready.timeout", "the hint names the knob as the configuration file does")
	assert.Empty(t, liveWithToken(t, h.token), "the hanging process must be killed")
}

func TestStartCancelledLeavesNothing(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "hang")
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	// The readiness probe is aimed at this server, which cancels Start's
	// context on the first probe: proof that the process is running, and
	// the moment to cancel. It never answers, so the probe is in flight.
	var probed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		probed.Store(true)
		cancel()
		<-r.Context().Done()
	}))
	defer srv.Close()
	h.spec.Ready = process.Ready{URL: srv.URL, Timeout: testDeadline / 2}

	p, err := process.Start(ctx, h.spec)
	require.Error(t, err)
	assert.Nil(t, p)
	assert.True(t, probed.Load(), "the probe reached the server")
	assert.ErrorIs(t, err, context.Canceled)
	var se *process.StartError
	assert.False(t, errors.As(err, &se), "cancellation is the caller's doing, not a StartError: %v", err)
	assert.Empty(t, liveWithToken(t, h.token))
}

// TestStartAbandonedSaysWhatItPrinted: a start abandoned by its caller
// before the process was ready says what the process had printed so far,
// which tells why it was slow.
func TestStartAbandonedSaysWhatItPrinted(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "hang")
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	// The process's output is kept before it is copied here: cancel once
	// the line is seen.
	h.spec.Stdout = writerFunc(func(b []byte) (int, error) {
		if strings.Contains(string(b), "not listening") {
			cancel()
		}
		return len(b), nil
	})
	p, err := process.Start(ctx, h.spec)
	require.Error(t, err)
	assert.Nil(t, p)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "start abandoned before it was ready")
	assert.Regexp(t, `last output so far:\n    \| helper hang: pid [0-9]+, not listening`, err.Error())
	assert.Empty(t, liveWithToken(t, h.token))
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestStartRefusesBadSpecs(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name       string
		ctx        context.Context
		spec       process.Spec
		startError bool // whether the error is a *StartError
		want       string
	}{
		{"no command: nothing to run", context.Background(), process.Spec{Name: "x"}, false, "Spec.Command is empty"},
		{"unknown program: reported with a hint", context.Background(),
			process.Spec{Command: []string{"idemcheck-no-such-program"}}, true, "could not be started"},
		{"missing directory: reported, not a panic", context.Background(),
			process.Spec{Command: []string{os.Args[0]}, Dir: "/no/such/dir"}, true, "could not be started"},
		{"context already done: nothing is started", cancelled,
			process.Spec{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=hang"}}, false, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := process.Start(tt.ctx, tt.spec)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Contains(t, err.Error(), tt.want)
			var se *process.StartError
			assert.Equal(t, tt.startError, errors.As(err, &se), "error type of %v", err)
		})
	}
}

func TestKillCrashesAtOnce(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	p := mustStart(t, h)
	pid := p.Pid()
	exited := p.Exited()
	assert.False(t, isClosed(exited), "running")

	require.NoError(t, p.Kill())
	waitClosed(t, exited, "Exited after Kill")
	assert.True(t, reaped(pid), "pid %d still exists after Kill", pid)
	_, err := get(h.url("/healthz"), eventTimeout)
	assert.Error(t, err, "a killed server does not answer")

	assert.NoError(t, p.Kill(), "killing a dead process is a no-op")
	assert.ErrorContains(t, p.Pause(), "not running")
	assert.ErrorContains(t, p.Resume(), "not running")
	assert.NoError(t, p.Stop(testContext(t)), "the harness caused this exit: not an error")
}

func TestPauseFreezesAndResumeThaws(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	p := mustStart(t, h)

	require.NoError(t, p.Pause())
	// The fault itself: a paused server accepts connections but answers
	// nothing, so a client with a short timeout gives up.
	_, err := get(h.url("/healthz"), 300*time.Millisecond)
	var nerr net.Error
	require.ErrorAs(t, err, &nerr, "a paused server must not answer")
	assert.True(t, nerr.Timeout(), "want a timeout, got %v", err)
	assert.False(t, isClosed(p.Exited()), "paused is not exited")

	require.NoError(t, p.Resume())
	assert.Equal(t, "ok", mustGet(t, h.url("/healthz")))
}

func TestStopEndsAPausedProcess(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	p := mustStart(t, h)
	pid := p.Pid()
	require.NoError(t, p.Pause())

	require.NoError(t, p.Stop(testContext(t)))
	assert.True(t, reaped(pid))
}

func TestStopGivesUpWaitingWhenContextEnds(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	p := mustStart(t, h)
	pid := p.Pid()
	require.NoError(t, p.Pause())
	// A done context cuts the grace period short: straight to SIGKILL.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	require.NoError(t, p.Stop(ctx))
	assert.True(t, reaped(pid))
}

func TestRestartStartsAFreshIncarnation(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	p := mustStart(t, h)
	oldPid, oldExited := p.Pid(), p.Exited()

	require.NoError(t, p.Restart(testContext(t)))
	assert.True(t, isClosed(oldExited), "the old incarnation has exited")
	assert.True(t, reaped(oldPid))
	assert.NotEqual(t, oldPid, p.Pid())
	assert.False(t, isClosed(p.Exited()), "Exited follows the new incarnation")
	assert.Equal(t, "ok", mustGet(t, h.url("/healthz")), "same env: same port")

	// Restart after a crash is the usual sequence of a chaos run.
	require.NoError(t, p.Kill())
	require.NoError(t, p.Restart(testContext(t)))
	assert.Equal(t, "ok", mustGet(t, h.url("/healthz")))

	require.NoError(t, p.Stop(testContext(t)))
	assert.Equal(t, 3, strings.Count(p.Output(), "listening on"), "Output spans incarnations:\n%s", p.Output())
}

func TestRestartFailureIsAStartError(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	p := mustStart(t, h)
	// Something else takes the port while the target is down: the next
	// incarnation cannot listen and exits.
	require.NoError(t, p.Kill())
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", h.port))
	require.NoError(t, err)
	defer l.Close()

	err = p.Restart(testContext(t))
	var se *process.StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "exited before it was ready", se.Reason)
	assert.Equal(t, 1, se.ExitCode)
	assert.Contains(t, se.Output, "address already in use")
	assert.True(t, isClosed(p.Exited()))
}

func TestGroupDiesWithItsLeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fault   func(t *testing.T, h helper, p *process.Process)
		stopErr bool // whether a later Stop reports the exit
	}{
		{"Stop", func(t *testing.T, _ helper, p *process.Process) {
			require.NoError(t, p.Stop(testContext(t)))
		}, false},
		{"Kill", func(t *testing.T, _ helper, p *process.Process) {
			require.NoError(t, p.Kill())
		}, false},
		{"Restart", func(t *testing.T, _ helper, p *process.Process) {
			require.NoError(t, p.Restart(testContext(t)))
		}, false},
		{"leader crashes by itself", func(t *testing.T, h helper, p *process.Process) {
			exited := p.Exited()
			_, err := get(h.url("/exit?code=2"), eventTimeout)
			require.Error(t, err, "the helper exits instead of answering")
			waitClosed(t, exited, "Exited after the crash")
		}, true},
	}
	// spawn: the grandchild stays in the group; escape: it leaves the
	// group and session and ignores SIGTERM, and must die all the same.
	for _, mode := range []string{"spawn", "escape"} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				h := newHelper(t, mode)
				p, err := process.Start(testContext(t), h.spec)
				require.NoError(t, err)
				pid := p.Pid()
				grandchild, err := strconv.Atoi(mustGet(t, h.url("/grandchild")))
				require.NoError(t, err)
				require.True(t, alive(grandchild), "grandchild %d is running", grandchild)

				tt.fault(t, h, p)
				assert.True(t, reaped(pid), "child %d still exists", pid)
				assert.False(t, alive(grandchild), "grandchild %d survived", grandchild)

				err = p.Stop(testContext(t))
				if tt.stopErr {
					assert.ErrorContains(t, err, "exited by itself")
					assert.ErrorContains(t, err, "exit status 2")
				} else {
					assert.NoError(t, err)
				}
				assert.Empty(t, liveWithToken(t, h.token))
			})
		}
	}
}

func TestFreePortIsUsable(t *testing.T) {
	t.Parallel()
	port, err := process.FreePort()
	require.NoError(t, err)
	assert.Positive(t, port)
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	require.NoError(t, err, "the port must be free to listen on")
	assert.NoError(t, l.Close())
}

// lockedBuffer is an io.Writer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestOutputKeepsTheLast64KiB(t *testing.T) {
	t.Parallel()
	var full strings.Builder
	for i := range floodLines {
		fmt.Fprintf(&full, floodFormat, i)
	}
	require.Greater(t, full.Len(), 64<<10, "the flood must overflow the buffer")

	h := newHelper(t, "flood")
	extra := &lockedBuffer{}
	h.spec.Stdout = extra
	_, err := process.Start(testContext(t), h.spec)
	var se *process.StartError
	require.ErrorAs(t, err, &se, "flood exits at once")
	assert.Equal(t, 0, se.ExitCode)

	want := full.String()[full.Len()-64<<10:]
	assert.True(t, se.Output == want, "Output is not the last 64 KiB: got %d bytes, ending %q",
		len(se.Output), se.Output[max(0, len(se.Output)-40):])
	assert.True(t, extra.String() == full.String(), "Spec.Stdout gets everything: got %d of %d bytes",
		len(extra.String()), full.Len())
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFailingStdoutDoesNotHurtTheTarget(t *testing.T) {
	t.Parallel()
	h := newHelper(t, "http")
	h.spec.Stdout = failingWriter{}
	p := mustStart(t, h)

	assert.Equal(t, "ok", mustGet(t, h.url("/healthz")))
	require.NoError(t, p.Stop(testContext(t)))
	assert.Contains(t, p.Output(), "listening on")
}

func TestStartErrorMessageWithoutOutput(t *testing.T) {
	t.Parallel()
	err := &process.StartError{Name: "shop", Reason: "exited before it was ready", ExitCode: 0}
	assert.Equal(t, "process \"shop\": exited before it was ready (exit code 0); it printed nothing\n"+
		"hint: run the command by hand with the same environment and directory to see what it does", err.Error())
}
