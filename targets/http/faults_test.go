package http_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// mustFault makes a built-in fault by name, as configuration does.
func mustFault(t testing.TB, name string, settings map[string]any) faults.Fault {
	t.Helper()
	f, err := faults.Builtin().New(name, settings)
	require.NoError(t, err)
	return f
}

func TestCallUnavailableBefore(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k", Fault: mustFault(t, faults.NameUnavailableBefore, nil)})

	assert.Equal(t, http.StatusServiceUnavailable, rep.Status)
	assert.False(t, rep.Forwarded, "the request provably never reached the target")
	assert.False(t, rep.Withheld)
	assert.NotEqual(t, harness.OK, rep.Outcome)
	assert.Empty(t, srv.seenAll())

	// The attempt after the fault goes through: the fault applied once.
	rep = call(t, tg, harness.Call{ID: "run-1-2", Key: "k"})
	assert.Equal(t, harness.OK, rep.Outcome)
	assert.Len(t, srv.seenAll(), 1)
}

func TestCallUnavailableBeforeIsAFailure(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k", Fault: mustFault(t, faults.NameUnavailableBefore, nil)})
	assert.Equal(t, harness.Fail, rep.Outcome)
}

func TestCallLostResponse(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k", Fault: mustFault(t, faults.NameLostResponse, nil)})

	assert.Equal(t, harness.Info, rep.Outcome, "the target acted but the client cannot know")
	assert.Equal(t, http.StatusServiceUnavailable, rep.Status)
	assert.True(t, rep.Forwarded)
	assert.True(t, rep.Withheld)
	assert.False(t, rep.HasEffect, "the target's effect field was withheld with its reply")
	assert.Empty(t, rep.Identity)
	assert.Len(t, srv.seenAll(), 1, "the target handled the request exactly once")
}

func TestCallLostResponseWithAStatusThatLooksLikeSuccess(t *testing.T) {
	// A withheld reply is info whatever status replaced it.
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Fault: &faults.LostResponse{Status: http.StatusAccepted}})
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Equal(t, http.StatusAccepted, rep.Status)
	assert.True(t, rep.Withheld)
}

func TestCallClientTimeout(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	f := mustFault(t, faults.NameClientTimeout, map[string]any{"timeout": "100ms"})
	rep := call(t, tg, harness.Call{Key: "k", Fault: f})

	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Contains(t, rep.Error, "no reply within 100ms (the client gave up)")
	assert.Zero(t, rep.Status)
	assert.True(t, rep.Forwarded, "the target got the request")
	assert.True(t, rep.Withheld, "the target replied; the client never saw it")
	recv(t, srv.done, "target completion")
	assert.Len(t, srv.seenAll(), 1, "the target handled the request exactly once")
}

func TestCallDownstreamFaultLeavesTheCallAlone(t *testing.T) {
	// The harness arms a downstream fault in the fakes; the adapter only
	// makes the call.
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k", Marker: "idem-1", Fault: mustFault(t, faults.NameDownstreamFailBefore, nil)})
	assert.Equal(t, harness.OK, rep.Outcome)
	assert.True(t, rep.Forwarded)
	assert.Len(t, srv.seenAll(), 1)
}

// processCrash is a fault the HTTP adapter has no way to inject.
type processCrash struct{}

func (processCrash) Name() string { return "crash" }

func TestSupports(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	for _, name := range []string{faults.NameClientTimeout, faults.NameUnavailableBefore, faults.NameLostResponse, faults.NameDownstreamFailBefore} {
		assert.True(t, tg.Supports(mustFault(t, name, nil)), name)
	}
	// Every registered fault with a proxy, client or downstream ability is
	// supported (crash faults depend on who started the process: not here).
	for _, name := range faults.Builtin().Names() {
		f := mustFault(t, name, nil)
		_, proxy := f.(faults.ProxyFault)
		_, client := f.(faults.ClientFault)
		_, downward := f.(faults.DownstreamFault)
		if proxy || client || downward {
			assert.True(t, tg.Supports(f), name)
		}
	}
	assert.True(t, tg.Supports(resetAfterForward{}), "any proxy fault, also one defined outside the package")
	assert.False(t, tg.Supports(processCrash{}), "a fault with no ability the adapter knows")
}

func TestCallTargetDownIsAFailure(t *testing.T) {
	tg := mustNew(t, oneOp(downURL(t), httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k"})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.False(t, rep.Forwarded)
	assert.Equal(t, http.StatusBadGateway, rep.Status)
	assert.Contains(t, rep.Error, "the target refused the connection")
}

func TestCallMisbehavingTargetIsInfoNeverAPanic(t *testing.T) {
	// Rows: targets that never give a usable reply. Each must end the call
	// with outcome info and an error, within the configured timeout.
	rows := []struct {
		why    string
		target func(t *testing.T) string
	}{
		{"hangs", func(t *testing.T) string {
			// Answers only when the proxy gives up and closes the connection.
			return newServer(t, nil, make(chan struct{})).srv.URL
		}},
		{"answers garbage", func(t *testing.T) string {
			return rawServer(t, func(c net.Conn, _ *http.Request) bool {
				_, _ = io.WriteString(c, "\x00\x01garbage\r\n\r\n")
				return false
			})
		}},
		{"hangs up without a reply", func(t *testing.T) string {
			return rawServer(t, func(net.Conn, *http.Request) bool { return false })
		}},
		{"sends half a reply", func(t *testing.T) string {
			return rawServer(t, func(c net.Conn, _ *http.Request) bool {
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"effect\":")
				return false
			})
		}},
		{"sends a malformed chunked body", func(t *testing.T) string {
			return rawServer(t, func(c net.Conn, _ *http.Request) bool {
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
				return false
			})
		}},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			cfg := oneOp(row.target(t), httptarget.Operation{Path: "/x"})
			cfg.Timeout = 200 * time.Millisecond
			tg := mustNew(t, cfg)
			var rep harness.Reply
			require.NotPanics(t, func() { rep = call(t, tg, harness.Call{Key: "k"}) })
			assert.Equal(t, harness.Info, rep.Outcome)
			assert.NotEmpty(t, rep.Error)
			assert.True(t, rep.Forwarded, "the target accepted the request")
		})
	}
}

// resetAfterForward is a proxy fault written outside the package, as a
// user would: forward, then reset the client's connection.
type resetAfterForward struct{}

func (resetAfterForward) Name() string { return "reset" }
func (resetAfterForward) Intercept(ex faults.Exchange) {
	_, _ = ex.Forward()
	ex.Reset()
}

func TestCallResetIsInfo(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	// A call without a key: net/http does not replay it (see below).
	rep := call(t, tg, harness.Call{Fault: mustFault(t, faults.NameReset, nil)})
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.NotEmpty(t, rep.Error)
	assert.True(t, rep.Forwarded)
	assert.True(t, rep.Withheld)
	assert.Len(t, srv.seenAll(), 1)
}

func TestCallLatencyWithTheTargetDownIsAFailure(t *testing.T) {
	tg := mustNew(t, oneOp(downURL(t), httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k", Fault: mustFault(t, faults.NameLatency, map[string]any{"delay": "1ms"})})
	assert.False(t, rep.Forwarded)
	assert.Equal(t, harness.Fail, rep.Outcome, rep.Error)
}

func TestCallResetOnAReusedConnectionIsNotResent(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x", Body: `{}`}))
	warm := call(t, tg, harness.Call{ID: "run-1-1", Key: "k-1"}) // leaves a keep-alive connection to the proxy
	require.Equal(t, harness.OK, warm.Outcome)

	rep := call(t, tg, harness.Call{ID: "run-2-1", Key: "k-2", Fault: mustFault(t, faults.NameReset, nil)})
	assert.Equal(t, harness.Info, rep.Outcome)
	n := 0
	for _, r := range srv.seenAll() {
		if r.Header.Get("Idempotency-Key") == "k-2" {
			n++
		}
	}
	assert.Equal(t, 1, n, "one attempt must reach the target once")
}

func TestCallReturnsWhenTheContextIsCancelled(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, nil, release)
	cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
	cfg.Timeout = time.Minute
	tg := mustNew(t, cfg)
	t.Cleanup(func() { close(release) }) // first cleanup: free the target before the proxy closes

	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan harness.Reply, 1)
	go func() { got <- tg.Call(ctx, harness.Call{ID: "run-1-1", Operation: "create", Key: "k"}) }()
	recv(t, srv.entered, "the request at the target")
	cancel()
	rep := recv(t, got, "Call to return after its context was cancelled")
	assert.Equal(t, harness.Info, rep.Outcome)
	assert.Contains(t, rep.Error, "context canceled")
}

func TestCallConcurrentAttempts(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	const n = 16
	var wg sync.WaitGroup
	replies := make([]harness.Reply, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := faults.Fault(nil)
			if i%4 == 0 {
				f = &faults.LostResponse{Status: http.StatusServiceUnavailable}
			}
			replies[i] = tg.Call(context.Background(), harness.Call{
				ID: fmt.Sprintf("run-%d-1", i), Operation: "create", Key: fmt.Sprintf("k-%d", i), Fault: f,
			})
		}()
	}
	wg.Wait()
	for i, rep := range replies {
		if i%4 == 0 {
			assert.Equal(t, harness.Info, rep.Outcome, "attempt %d", i)
			assert.True(t, rep.Withheld, "attempt %d: the fault went to its own attempt", i)
		} else {
			assert.Equal(t, harness.OK, rep.Outcome, "attempt %d", i)
			assert.False(t, rep.Withheld, "attempt %d caught another attempt's fault", i)
		}
	}
	assert.Len(t, srv.seenAll(), n)
}

func TestCloseRunsTheOnCloseHook(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg, err := httptarget.New(oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	require.NoError(t, err)
	calls := 0
	boom := errors.New("stopping the server failed")
	tg.OnClose(func() error { calls++; return boom })
	rep := call(t, tg, harness.Call{})
	require.Equal(t, harness.OK, rep.Outcome)

	err = tg.Close()
	assert.Equal(t, 1, calls)
	assert.ErrorIs(t, err, boom, "the hook's error is returned")
}

func TestCloseWithoutHook(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg, err := httptarget.New(oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	require.NoError(t, err)
	assert.NoError(t, tg.Close())
}

// TestCallGivenUpBeforeSentIsNotSent: a client that gives up before its
// request was written (here a timeout already over when the call starts,
// as a short paced timeout on a busy machine) reports that the request was
// never sent, at once: it neither waits for a report the proxy will never
// make nor leaves the attempt armed.
func TestCallGivenUpBeforeSentIsNotSent(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	for _, f := range []faults.Fault{&faults.ClientTimeout{Timeout: 1}, &faults.Hang{Timeout: 1}} {
		got := make(chan harness.Reply, 1)
		go func() {
			got <- tg.Call(context.Background(), harness.Call{ID: "run-1-" + f.Name(), Operation: "create", Key: "k", Fault: f})
		}()
		select {
		case rep := <-got:
			assert.Equal(t, harness.Fail, rep.Outcome, "%s: %+v", f.Name(), rep)
			assert.Contains(t, rep.Error, "not sent", f.Name())
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: the call still waits for the proxy's report of a request never sent", f.Name())
		}
	}
	assert.Empty(t, srv.seenAll(), "the target saw a request that was never sent")
}
