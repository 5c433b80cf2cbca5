package http_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

func whoamiPid(t *testing.T, body string) (int, string) {
	t.Helper()
	var who struct {
		Pid   int    `json:"pid"`
		State string `json:"state"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &who), body)
	return who.Pid, who.State
}

// TestReplicasStartInstancesThatShareState: replicas: 2 starts two
// processes on ports of their own with one state directory; sequential
// calls go to each in turn, a burst's copies are split between them, a
// crash kills and restarts both, and Close stops both.
func TestReplicasStartInstancesThatShareState(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	launch := helperLaunch("1")
	launch.Replicas = 2
	tg, err := httptarget.Spec(helperConfig(), launch).Start(startCtx(t), env)
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = tg.Close()
		}
	})
	ht := tg.(*httptarget.Target)
	require.Equal(t, 2, ht.Replicas())
	urls := ht.BaseURLs()
	require.Len(t, urls, 2)
	assert.NotEqual(t, urls[0], urls[1], "each instance listens on a port of its own")
	assert.Equal(t, urls[0], ht.BaseURL())

	var pids []int
	for i := range 4 {
		rep := tg.Call(context.Background(), harness.Call{ID: "r-" + string(rune('1'+i)) + "-1", Operation: "whoami"})
		require.Equal(t, harness.OK, rep.Outcome, rep.Error)
		pid, state := whoamiPid(t, rep.Body)
		assert.Equal(t, env.StateDir, state, "every instance gets the one state directory")
		pids = append(pids, pid)
	}
	assert.NotEqual(t, pids[0], pids[1], "calls in turn: the second goes to the other instance")
	assert.Equal(t, []int{pids[0], pids[1]}, []int{pids[2], pids[3]}, "round-robin")

	burst := ht.Burst(context.Background(), harness.Call{ID: "r-9-burst", Operation: "whoami"}, 4)
	perPid := map[int]int{}
	for _, rep := range burst {
		require.Equal(t, harness.OK, rep.Outcome, rep.Error)
		pid, _ := whoamiPid(t, rep.Body)
		perPid[pid]++
	}
	assert.Equal(t, map[int]int{pids[0]: 2, pids[1]: 2}, perPid, "a burst is split between the instances")

	assert.True(t, ht.Supports(&faults.Crash{Point: faults.AfterEffect}), "crashes need every instance started by idemcheck")
	require.NoError(t, ht.Kill())
	for _, pid := range pids[:2] {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "a crash kills every instance")
	}
	require.NoError(t, ht.Restart(startCtx(t)))
	after := map[int]bool{}
	for i := range 2 {
		rep := tg.Call(context.Background(), harness.Call{ID: "r-" + string(rune('a'+i)) + "-1", Operation: "whoami"})
		require.Equal(t, harness.OK, rep.Outcome, rep.Error)
		pid, _ := whoamiPid(t, rep.Body)
		after[pid] = true
	}
	assert.Len(t, after, 2, "both instances are back")

	closed = true
	require.NoError(t, tg.Close())
	for pid := range after {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "an instance outlived Close")
	}
}

// TestReplicasNeedAPortEach: replicas on a fixed address are refused
// before anything starts.
func TestReplicasNeedAPortEach(t *testing.T) {
	cfg := helperConfig()
	cfg.BaseURL = "http://127.0.0.1:8080"
	launch := helperLaunch("1")
	launch.Replicas = 2
	tg, err := httptarget.Spec(cfg, launch).Start(startCtx(t), testEnv(t))
	if tg != nil {
		_ = tg.Close()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "{{port}}")
}

// TestBurstReplyCutIsNotClean: a burst copy whose body is longer than the
// 1 MiB kept is recorded as cut (info), never as a clean 200.
func TestBurstReplyCutIsNotClean(t *testing.T) {
	big := strings.Repeat("x", faults.MaxBurstReplyBody+10)
	srv := newServer(t, replyWith(http.StatusOK, big), nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	for _, rep := range tg.Burst(context.Background(), harness.Call{ID: "r-1-burst", Operation: "create", Key: "k"}, 2) {
		assert.Equal(t, harness.Info, rep.Outcome)
		assert.Contains(t, rep.Error, "cut")
		assert.Equal(t, 200, rep.Status)
	}
}

// TestBurstToNothingSentNothing: a burst that could not open a single
// connection (the target stopped listening) sent nothing: its copies
// are failures that never reached the target, not unknown outcomes, and
// say so once.
func TestBurstToNothingSentNothing(t *testing.T) {
	srv := newServer(t, replyWith(http.StatusOK, "{}"), nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	srv.srv.Close()
	for _, rep := range tg.Burst(context.Background(), harness.Call{ID: "r-1-burst", Operation: "create", Key: "k"}, 2) {
		assert.Equal(t, harness.Fail, rep.Outcome)
		assert.False(t, rep.Forwarded)
		assert.True(t, strings.HasPrefix(rep.Error, "burst: could not open a single connection"), rep.Error)
		assert.NotContains(t, rep.Error, "burst: burst:")
	}
}

// TestReplyBodyThatStallsIsUnfinished: a target that sends its status
// and the start of a body, then nothing more, has its reply recorded as
// unfinished (info), through the fault proxy and in a burst's copies
// alike, never as a reply the target did not send: a body that never
// ends is told apart from silence on a machine too slow to read it to
// the cut. Through the proxy the status is told in the error, not as the
// attempt's status: the client got no reply it could act on.
func TestReplyBodyThatStallsIsUnfinished(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"effect":`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}, nil)
	cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
	cfg.Timeout = time.Second
	tg := mustNew(t, cfg)
	rep := call(t, tg, harness.Call{ID: "r-1-1", Operation: "create", Key: "k"})
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Zero(t, rep.Status)
	assert.Regexp(t, "^"+harness.ReplyUnfinished+`: the target sent status 200, and its body had not ended after 1s$`, rep.Error)
	for _, rep := range tg.Burst(context.Background(), harness.Call{ID: "r-2-burst", Operation: "create", Key: "k"}, 2) {
		assert.Equal(t, harness.Info, rep.Outcome)
		assert.True(t, strings.HasPrefix(rep.Error, harness.ReplyUnfinished), rep.Error)
		assert.Equal(t, 200, rep.Status)
	}
}

// TestCallersSendTheirHeaders: a call names its caller, whose headers it
// carries; a caller that is not configured is an error, not a request.
func TestCallersSendTheirHeaders(t *testing.T) {
	srv := newServer(t, nil, nil)
	cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x", Headers: map[string]string{"Authorization": "Bearer op"}})
	cfg.Callers = []httptarget.Caller{
		{Headers: map[string]string{"Authorization": "Bearer one"}},
		{Headers: map[string]string{"Authorization": "Bearer two"}},
	}
	tg := mustNew(t, cfg)
	assert.Equal(t, 2, tg.Info().Caps().Callers)
	for i, want := range []string{"Bearer one", "Bearer two"} {
		rep := call(t, tg, harness.Call{ID: "r-" + string(rune('1'+i)) + "-1", Operation: "create", Key: "k", Caller: i})
		require.Equal(t, harness.OK, rep.Outcome, rep.Error)
		got := srv.seenAll()
		assert.Equal(t, want, got[len(got)-1].Header.Get("Authorization"))
	}
	rep := call(t, tg, harness.Call{ID: "r-9-1", Operation: "create", Key: "k", Caller: 2})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "caller 3")
	assert.Len(t, srv.seenAll(), 2, "nothing sent for an unknown caller")
}
