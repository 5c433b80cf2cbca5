package faults_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

// mustFault makes a built-in fault from the registry, as configuration does.
func mustFault(t testing.TB, name string, settings map[string]any) faults.Fault {
	t.Helper()
	f, err := faults.Builtin().New(name, settings)
	require.NoError(t, err)
	return f
}

func TestUnavailableBeforeNeverForwards(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", mustFault(t, faults.NameUnavailableBefore, nil).(faults.ProxyFault))

	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/orders", "a1", `{"amount":1}`, nil)

	assert.Equal(t, http.StatusServiceUnavailable, got.Status)
	assert.Equal(t, "0", got.Header.Get("Retry-After"), "a client may retry at once")
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"ok":false,"error":"injected: service unavailable"}`, got.Body)

	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{}, rep, "not forwarded, nothing withheld, no upstream status")
	// The proxy answered without forwarding: had it forwarded, the target
	// would have finished before the client got its reply.
	assert.Empty(t, tg.completed(), "the target saw the request")
}

func TestLostResponseLetsTheTargetFinishAndHidesTheReply(t *testing.T) {
	// Rows: the default replacement status, and a configured one.
	rows := []struct {
		why      string
		settings map[string]any
		want     int
	}{
		{"default 503", nil, http.StatusServiceUnavailable},
		{"configured 504", map[string]any{"status": 504}, http.StatusGatewayTimeout},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			tg := newTarget(t, targetOpts{})
			p := mustProxy(t, tg.srv.URL, 0)
			p.Arm("a1", mustFault(t, faults.NameLostResponse, row.settings).(faults.ProxyFault))

			got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/orders", "a1", `{"amount":1}`, nil)

			assert.Equal(t, row.want, got.Status)
			assert.JSONEq(t, `{"ok":false,"error":"injected: reply lost"}`, got.Body)
			assert.NotContains(t, got.Body, "ord_1", "the target's reply leaked to the client")
			reqs := tg.completed()
			require.Len(t, reqs, 1, "the target handles the request exactly once")
			assert.Equal(t, `{"amount":1}`, string(reqs[0].Body))

			rep, ok := p.Report(context.Background(), "a1", waitLimit)
			require.True(t, ok)
			assert.Equal(t, faults.Report{Forwarded: true, Withheld: true, UpstreamStatus: http.StatusCreated}, rep)
		})
	}
}

func TestLostResponseTargetDownIsRefusedNotWithheld(t *testing.T) {
	p := mustProxy(t, downURL(t), 0)
	p.Arm("a1", &faults.LostResponse{Status: http.StatusServiceUnavailable})
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, got.Status)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Refused)
	assert.False(t, rep.Forwarded)
	assert.False(t, rep.Withheld, "nothing to withhold: the target never replied")
}

func TestLostResponseHangingTargetIsAnUpstreamError(t *testing.T) {
	never := make(chan struct{})
	tg := newTarget(t, targetOpts{release: never})
	p := mustProxy(t, tg.srv.URL, 100*time.Millisecond)
	p.Arm("a1", &faults.LostResponse{Status: http.StatusServiceUnavailable})
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, got.Status)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Forwarded)
	assert.False(t, rep.Withheld)
	assert.NotEmpty(t, rep.UpstreamError)
}

func TestClientTimeoutTheClientGivesUpAndTheTargetFinishesOnce(t *testing.T) {
	f := mustFault(t, faults.NameClientTimeout, map[string]any{"timeout": "100ms"})
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, waitLimit)
	p.Arm("a1", f.(faults.ProxyFault))

	c := newClient(t, f.(faults.ClientFault).ClientTimeout())
	_, err := send(t, c, http.MethodPost, p.URL()+"/orders", "a1", `{"amount":1}`, nil)
	require.Error(t, err, "the proxy must hold the reply until the client gives up, even from a fast target")
	assert.True(t, errIsTimeout(err), "a timeout, not some other failure: %v", err)

	recv(t, tg.done, "target completion")
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{Forwarded: true, Withheld: true, UpstreamStatus: http.StatusCreated}, rep)
	assert.Len(t, tg.completed(), 1, "the target handled the request exactly once")
}

func TestClientTimeoutSlowTargetRunsToTheEnd(t *testing.T) {
	release := make(chan struct{})
	tg := newTarget(t, targetOpts{release: release})
	p := mustProxy(t, tg.srv.URL, waitLimit)
	fr := mustFront(t, p)
	f := &faults.ClientTimeout{Timeout: faults.Duration(100 * time.Millisecond)}
	p.Arm("a1", f)

	_, err := send(t, newClient(t, f.ClientTimeout()), http.MethodPost, fr.URL+"/x", "a1", "", nil)
	require.Error(t, err)
	assert.True(t, errIsTimeout(err), "%v", err)
	recv(t, tg.entered, "request at the target")
	recv(t, fr.clientGone, "the proxy noticing the client left")

	close(release)
	s := recv(t, tg.done, "target completion")
	assert.NoError(t, s.CtxErr, "the client giving up reached the target")
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{Forwarded: true, Withheld: true, UpstreamStatus: http.StatusCreated}, rep)
}

// The tests below check the Exchange contract that CREATING_FAULTS.md
// promises fault authors, with faults written the way a user would.

// forgetful forwards and never answers.
type forgetful struct{}

func (forgetful) Name() string                 { return "forgetful" }
func (forgetful) Intercept(ex faults.Exchange) { _, _ = ex.Forward() }

func TestAFaultThatForgetsToAnswerResetsTheClient(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", forgetful{})
	_, err := send(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	require.Error(t, err, "the client must not get a reply")
	assert.False(t, errIsTimeout(err), "the client was left hanging until its timeout: %v", err)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Forwarded)
	assert.True(t, rep.Withheld, "the target's reply never reached the client")
}

// greedy forwards twice and answers twice.
type greedy struct {
	second chan *faults.Upstream
}

func (greedy) Name() string { return "greedy" }
func (g greedy) Intercept(ex faults.Exchange) {
	first, _ := ex.Forward()
	again, _ := ex.Forward()
	g.second <- again
	ex.Respond(first.Status, first.Header, first.Body)
	ex.Respond(http.StatusTeapot, nil, []byte("second answer"))
	ex.Reset()
}

func TestExchangeForwardsOnceAndAnswersOnce(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	g := greedy{second: make(chan *faults.Upstream, 1)}
	p.Arm("a1", g)
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusCreated, got.Status, "the first answer wins")
	assert.Contains(t, got.Body, "ord_1")
	again := recv(t, g.second, "the second Forward")
	require.NotNil(t, again)
	assert.Equal(t, http.StatusCreated, again.Status, "a second Forward returns the first reply")
	assert.Len(t, tg.completed(), 1, "a second Forward must not reach the target")
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{Forwarded: true, UpstreamStatus: http.StatusCreated}, rep,
		"the client got the target's reply: nothing withheld")
}

// inspector records what a fault sees of the request, then passes it on.
type inspector struct{ got chan *http.Request }

func (inspector) Name() string { return "inspector" }
func (i inspector) Intercept(ex faults.Exchange) {
	i.got <- ex.Request()
	up, err := ex.Forward()
	if err != nil {
		ex.Reset()
		return
	}
	ex.Respond(up.Status, up.Header, up.Body)
}

func TestExchangeRequestIsTheClientsRequestWithoutTheAttemptHeader(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	in := inspector{got: make(chan *http.Request, 1)}
	p.Arm("a1", in)
	got := mustSend(t, newClient(t, waitLimit), http.MethodPatch, p.URL()+"/orders/9?x=1", "a1", `{}`,
		http.Header{"Idempotency-Key": {"k"}})
	assert.Equal(t, http.StatusCreated, got.Status)
	r := recv(t, in.got, "the fault's view of the request")
	assert.Equal(t, http.MethodPatch, r.Method)
	assert.Equal(t, "/orders/9", r.URL.Path)
	assert.Equal(t, "x=1", r.URL.RawQuery)
	assert.Equal(t, "k", r.Header.Get("Idempotency-Key"))
	assert.Empty(t, r.Header.Get(faults.AttemptHeader))
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{Forwarded: true, UpstreamStatus: http.StatusCreated}, rep)
}

func TestResetForwardsThenDropsTheConnection(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", mustFault(t, faults.NameReset, nil).(faults.ProxyFault))
	_, err := send(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	require.Error(t, err, "the client must get no reply")
	assert.False(t, errIsTimeout(err), "a reset, not a hang: %v", err)
	assert.Len(t, tg.completed(), 1, "the target handled the request exactly once")
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{Forwarded: true, Withheld: true, UpstreamStatus: http.StatusCreated}, rep)
}

func TestLatencyDelaysTheRequestAndDeliversTheReply(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", mustFault(t, faults.NameLatency, map[string]any{"delay": "20ms"}).(faults.ProxyFault))
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusCreated, got.Status)
	assert.Contains(t, got.Body, "ord_1")
	assert.Len(t, tg.completed(), 1)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{Forwarded: true, UpstreamStatus: http.StatusCreated}, rep, "the real reply: not withheld")
}

func TestLatencyClientGoneBeforeForwardSendsNothing(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", &faults.Latency{Delay: faults.Duration(time.Hour)}) // ends only because the client leaves
	_, err := send(t, newClient(t, 100*time.Millisecond), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	require.Error(t, err)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{}, rep, "never forwarded")
	assert.Empty(t, tg.completed())
}

func TestHangHoldsTheRequestUntilTheClientGivesUp(t *testing.T) {
	f := mustFault(t, faults.NameHang, map[string]any{"timeout": "100ms"})
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", f.(faults.ProxyFault))
	_, err := send(t, newClient(t, f.(faults.ClientFault).ClientTimeout()), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	require.Error(t, err)
	assert.True(t, errIsTimeout(err), "%v", err)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.Equal(t, faults.Report{}, rep, "the request was lost on its way: not forwarded")
	assert.Empty(t, tg.completed())
}

// TestDisrupts: the faults that act on the whole target (a crash, at any
// point, and a restart of its database) are told from those that act on
// one attempt.
func TestDisrupts(t *testing.T) {
	whole := map[string]bool{
		faults.NameCrashBeforeEffect: true, faults.NameCrashAfterEffect: true, faults.NameCrashAfterReply: true,
		faults.NameCrashBeforeCommit: true, faults.NameCrashAfterCommit: true, faults.NameDepRefuse: true,
	}
	reg := faults.Builtin()
	for _, name := range reg.Names() {
		f, err := reg.New(name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, whole[name], faults.Disrupts(f), name)
	}
	assert.False(t, faults.Disrupts(nil))
}
