package faults_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

func TestNewProxyRejectsATargetThatIsNotABaseURL(t *testing.T) {
	for _, target := range []string{"", "127.0.0.1:8080", "/just/a/path", "http://%zz"} {
		t.Run(target, func(t *testing.T) {
			p, err := faults.NewProxy(target, 0)
			if p != nil {
				_ = p.Close()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not a base URL")
		})
	}
}

func TestProxyPassThroughPreservesTheRequestAndTheReply(t *testing.T) {
	tg := newTarget(t, targetOpts{reply: func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"effect":"created","data":{"id":"ord_1"}}`)
	}})
	p := mustProxy(t, tg.srv.URL, 0)
	c := newClient(t, waitLimit)

	p.Arm("a1", nil) // announced, no fault: pass through, with a report
	hdr := http.Header{}
	hdr.Set("Idempotency-Key", "key-1")
	hdr.Set("Content-Type", "application/json")
	hdr.Add("X-Multi", "one")
	hdr.Add("X-Multi", "two")
	body := `{"amount":1200,"marker":"idem-7f3a"}`
	got := mustSend(t, c, http.MethodPut, p.URL()+"/v1/orders/7?currency=eur&note=a+b%26c", "a1", body, hdr)

	assert.Equal(t, http.StatusCreated, got.Status)
	assert.Equal(t, `{"effect":"created","data":{"id":"ord_1"}}`, got.Body)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, "true", got.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, []string{"a=1", "b=2"}, got.Header.Values("Set-Cookie"))
	assert.Empty(t, got.Header.Get("Idemcheck-Proxy-Error"))

	reqs := tg.completed()
	require.Len(t, reqs, 1, "the target must see the request exactly once")
	r := reqs[0]
	assert.Equal(t, http.MethodPut, r.Method)
	assert.Equal(t, "/v1/orders/7", r.Path)
	assert.Equal(t, "currency=eur&note=a+b%26c", r.RawQuery, "the query is forwarded byte for byte")
	assert.Equal(t, "key-1", r.Header.Get("Idempotency-Key"))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, []string{"one", "two"}, r.Header.Values("X-Multi"))
	assert.NotContains(t, r.Header, faults.AttemptHeader, "the proxy strips its attempt header")
	assert.Equal(t, body, string(r.Body))
	assert.NoError(t, r.CtxErr)

	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok, "a report for the attempt")
	assert.Equal(t, faults.Report{Forwarded: true, UpstreamStatus: http.StatusCreated}, rep)

	_, ok = p.Report(context.Background(), "a1", waitLimit)
	assert.False(t, ok, "Report forgets what it returned (and does not wait for a forgotten attempt)")
}

func TestProxyPassThroughMethodsAndStatuses(t *testing.T) {
	// Rows: each method the targets use, and statuses whose handling by an
	// HTTP stack is special (no body, client error, server error).
	rows := []struct {
		method string
		status int
		body   string
	}{
		{http.MethodGet, http.StatusOK, `{"ok":true}`},
		{http.MethodPost, http.StatusConflict, `{"error":"in flight"}`},
		{http.MethodPatch, http.StatusUnprocessableEntity, `{"error":"mismatch"}`},
		{http.MethodDelete, http.StatusNoContent, ``},
		{http.MethodPost, http.StatusInternalServerError, `oops`},
		{http.MethodPost, http.StatusServiceUnavailable, `{"ok":false}`},
	}
	for _, row := range rows {
		t.Run(row.method+"_"+http.StatusText(row.status), func(t *testing.T) {
			tg := newTarget(t, targetOpts{reply: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(row.status)
				_, _ = io.WriteString(w, row.body)
			}})
			p := mustProxy(t, tg.srv.URL, 0)
			p.Arm("a1", nil)
			got := mustSend(t, newClient(t, waitLimit), row.method, p.URL()+"/x", "a1", "", nil)
			assert.Equal(t, row.status, got.Status)
			assert.Equal(t, row.body, got.Body)
			reqs := tg.completed()
			require.Len(t, reqs, 1)
			assert.Equal(t, row.method, reqs[0].Method)
			rep, ok := p.Report(context.Background(), "a1", waitLimit)
			require.True(t, ok)
			assert.Equal(t, faults.Report{Forwarded: true, UpstreamStatus: row.status}, rep,
				"a reply passed through unchanged is not withheld, whatever its status")
		})
	}
}

func TestProxyKeepsTheTargetBasePath(t *testing.T) {
	// Rows: a base URL with a path prefix, with and without a trailing slash.
	for _, base := range []string{"/api", "/api/"} {
		t.Run(base, func(t *testing.T) {
			tg := newTarget(t, targetOpts{})
			p := mustProxy(t, tg.srv.URL+base, 0)
			mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/orders?x=1", "a1", "", nil)
			reqs := tg.completed()
			require.Len(t, reqs, 1)
			assert.Equal(t, "/api/orders", reqs[0].Path)
			assert.Equal(t, "x=1", reqs[0].RawQuery)
		})
	}
}

func TestProxyPreservesAnEscapedPath(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/items/a%2Fb%3Fc", "a1", "", nil)
	reqs := tg.completed()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/items/a%2Fb%3Fc", reqs[0].EscapedPath)
}

func TestProxyUnannouncedAttemptsPassThroughWithoutAReport(t *testing.T) {
	// Rows: no attempt header at all, and an id nobody armed.
	for _, id := range []string{"", "never-armed"} {
		t.Run("id="+id, func(t *testing.T) {
			tg := newTarget(t, targetOpts{})
			p := mustProxy(t, tg.srv.URL, 0)
			got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", id, "", nil)
			assert.Equal(t, http.StatusCreated, got.Status)
			reqs := tg.completed()
			require.Len(t, reqs, 1)
			assert.NotContains(t, reqs[0].Header, faults.AttemptHeader)
			_, ok := p.Report(context.Background(), id, waitLimit)
			assert.False(t, ok, "only announced attempts get a report, and Report must not wait for others")
		})
	}
}

func TestProxyFaultAppliesOnlyToItsAttemptAndIsForgottenAfterReport(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	c := newClient(t, waitLimit)
	p.Arm("a1", &faults.UnavailableBefore{})

	other := mustSend(t, c, http.MethodPost, p.URL()+"/x", "a2", "", nil)
	assert.Equal(t, http.StatusCreated, other.Status, "another attempt is not faulted")

	first := mustSend(t, c, http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, first.Status, "the armed attempt is faulted")
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.False(t, rep.Forwarded)

	again := mustSend(t, c, http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusCreated, again.Status, "after Report the attempt is forgotten, with its fault")
	assert.Len(t, tg.completed(), 2)
}

func TestProxyReportOfAnAttemptThatNeverCameGivesUpAndDisarms(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	p.Arm("a1", &faults.UnavailableBefore{})
	_, ok := p.Report(context.Background(), "a1", 0)
	assert.False(t, ok, "nothing reached the proxy")
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusCreated, got.Status, "Report forgot the armed fault too")
}

func TestProxySurvivesTwoRequestsWithOneAttemptID(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	c := newClient(t, waitLimit)
	p.Arm("a1", &faults.LostResponse{Status: http.StatusServiceUnavailable})

	first := mustSend(t, c, http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, first.Status)
	second, err := send(t, c, http.MethodPost, p.URL()+"/x", "a1", "", nil)
	require.NoError(t, err, "the proxy dropped the second request with the same attempt id")
	assert.Equal(t, http.StatusCreated, second.Status, "a fault applies to one exchange")
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Withheld, "the report is the first exchange's")
}

func TestProxyTargetDownIsRefused(t *testing.T) {
	p := mustProxy(t, downURL(t), 0)
	p.Arm("a1", nil)
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", `{}`, nil)

	assert.Equal(t, http.StatusBadGateway, got.Status)
	assert.Equal(t, "1", got.Header.Get("Idemcheck-Proxy-Error"))
	assert.Contains(t, got.Body, "idemcheck proxy:")

	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Refused)
	assert.False(t, rep.Forwarded, "a refused connection never reached the target")
	assert.False(t, rep.Withheld)
	assert.Zero(t, rep.UpstreamStatus)
	assert.Contains(t, rep.UpstreamError, "connect")
}

func TestProxyHangingTargetIsCutAtTheForwardTimeout(t *testing.T) {
	never := make(chan struct{}) // the target answers only when the proxy gives up
	tg := newTarget(t, targetOpts{release: never})
	p := mustProxy(t, tg.srv.URL, 100*time.Millisecond)
	p.Arm("a1", nil)
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)

	assert.Equal(t, http.StatusBadGateway, got.Status)
	assert.Equal(t, "1", got.Header.Get("Idemcheck-Proxy-Error"))
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Forwarded, "the target got the request")
	assert.False(t, rep.Refused)
	assert.False(t, rep.Withheld)
	assert.Zero(t, rep.UpstreamStatus)
	assert.Contains(t, rep.UpstreamError, "deadline exceeded")
	assert.True(t, rep.TimedOut)
}

func TestProxyGarbageReplyIsAnUpstreamError(t *testing.T) {
	rt := newRawTarget(t, func(_ *rawTarget, c net.Conn, _ *http.Request) bool {
		_, _ = io.WriteString(c, "this is not HTTP\r\n\r\n")
		return false
	})
	p := mustProxy(t, rt.URL(), 0)
	p.Arm("a1", nil)
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", "", nil)
	assert.Equal(t, http.StatusBadGateway, got.Status)
	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Forwarded)
	assert.False(t, rep.Refused)
	assert.NotEmpty(t, rep.UpstreamError)
	assert.False(t, rep.TimedOut, "an error before the forward timeout is not a timeout")
}

func TestProxyDoesNotPassOnTheClientGivingUp(t *testing.T) {
	release := make(chan struct{})
	tg := newTarget(t, targetOpts{release: release})
	p := mustProxy(t, tg.srv.URL, waitLimit)
	fr := mustFront(t, p)
	p.Arm("a1", nil)

	_, err := send(t, newClient(t, 100*time.Millisecond), http.MethodPost, fr.URL+"/x", "a1", `{"n":1}`, nil)
	require.Error(t, err)
	assert.True(t, errIsTimeout(err), "the client timed out: %v", err)
	recv(t, tg.entered, "request at the target")
	assert.Equal(t, "a1", recv(t, fr.clientGone, "the proxy noticing the client left"))

	// Only now, with the client gone and the proxy aware of it, may the
	// target finish: it must not have been cancelled.
	close(release)
	s := recv(t, tg.done, "target completion")
	assert.NoError(t, s.CtxErr, "the target saw the client's cancellation")

	rep, ok := p.Report(context.Background(), "a1", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Forwarded)
	assert.Equal(t, http.StatusCreated, rep.UpstreamStatus)
	assert.Empty(t, rep.UpstreamError)
	assert.Len(t, tg.completed(), 1)
}

func TestProxyCloseWaitsForExchangesInProgressAndIsIdempotent(t *testing.T) {
	release := make(chan struct{})
	tg := newTarget(t, targetOpts{release: release})
	p, err := faults.NewProxy(tg.srv.URL, waitLimit)
	require.NoError(t, err)
	c := newClient(t, waitLimit)

	type result struct {
		r   reply
		err error
	}
	sent := make(chan result, 1)
	go func() {
		r, err := send(t, c, http.MethodPost, p.URL()+"/x", "a1", "", nil)
		sent <- result{r, err}
	}()
	recv(t, tg.entered, "request at the target")

	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()

	// Close has begun once the proxy no longer accepts connections.
	addr := strings.TrimPrefix(p.URL(), "http://")
	deadline := time.Now().Add(waitLimit)
	for {
		conn, err := net.DialTimeout("tcp", addr, waitLimit)
		if err != nil {
			break
		}
		_ = conn.Close()
		require.True(t, time.Now().Before(deadline), "the proxy still accepts connections after Close")
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while an exchange was in progress", err)
	default:
	}

	close(release)
	res := recv(t, sent, "the client's reply")
	require.NoError(t, res.err, "Close cut an exchange in progress")
	assert.Equal(t, http.StatusCreated, res.r.Status)
	assert.NoError(t, recv(t, closed, "Close to return"))

	assert.NoError(t, p.Close(), "a second Close")
	_, err = send(t, c, http.MethodPost, p.URL()+"/x", "a2", "", nil)
	assert.Error(t, err, "a closed proxy takes no requests")
}

func TestProxyNeverSendsARequestTwice(t *testing.T) {
	rt := newRawTarget(t, func(_ *rawTarget, c net.Conn, req *http.Request) bool {
		if req.Header.Get("Idempotency-Key") == "drop" {
			return false // read the whole request, then hang up without a reply
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	p := mustProxy(t, rt.URL(), waitLimit)
	c := newClient(t, waitLimit)

	// The first exchange leaves a keep-alive connection in the proxy's pool.
	first := mustSend(t, c, http.MethodPost, p.URL()+"/x", "a1", "{}", http.Header{"Idempotency-Key": {"warm"}})
	require.Equal(t, http.StatusOK, first.Status)

	got := mustSend(t, c, http.MethodPost, p.URL()+"/x", "a2", "{}", http.Header{"Idempotency-Key": {"drop"}})
	assert.Equal(t, http.StatusBadGateway, got.Status)
	assert.Equal(t, 1, rt.count("drop"), "the target must receive one attempt once")
}

func TestProxyReportsATargetThatCrashedAfterReadingTheRequestAsForwarded(t *testing.T) {
	rt := newRawTarget(t, func(rt *rawTarget, c net.Conn, req *http.Request) bool {
		if req.Header.Get("Idempotency-Key") == "crash" {
			_ = rt.ln.Close() // the server dies with the request read
			return false
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
	p := mustProxy(t, rt.URL(), waitLimit)
	c := newClient(t, waitLimit)
	mustSend(t, c, http.MethodPost, p.URL()+"/x", "a1", "{}", http.Header{"Idempotency-Key": {"warm"}})
	p.Arm("a2", nil)
	mustSend(t, c, http.MethodPost, p.URL()+"/x", "a2", "{}", http.Header{"Idempotency-Key": {"crash"}})

	rep, ok := p.Report(context.Background(), "a2", waitLimit)
	require.True(t, ok)
	assert.Equal(t, 1, rt.count("crash"))
	assert.True(t, rep.Forwarded, "the target read the request")
	assert.False(t, rep.Refused, "the target accepted the connection")
}

func TestProxyForwardsALargeBodyWhole(t *testing.T) {
	tg := newTarget(t, targetOpts{})
	p := mustProxy(t, tg.srv.URL, 0)
	body := strings.Repeat("x", 5<<20)
	got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/x", "a1", body, nil)
	if got.Status == http.StatusCreated {
		reqs := tg.completed()
		require.Len(t, reqs, 1)
		assert.Equal(t, len(body), len(reqs[0].Body), "the target got a truncated body")
	} else {
		assert.Equal(t, http.StatusRequestEntityTooLarge, got.Status)
	}
}

// TestProxyCloseCutsAForwardThatHangs: once Close has waited for the
// exchanges in progress, it ends the forwards still waiting on the target
// (their client's context has no Done channel; the proxy's client is
// aborted), long before their forward timeout.
func TestProxyCloseCutsAForwardThatHangs(t *testing.T) {
	defer faults.SetCloseWait(50 * time.Millisecond)()
	hold := make(chan struct{})
	defer close(hold)
	tg := newTarget(t, targetOpts{release: hold})
	p, err := faults.NewProxy(tg.srv.URL, time.Hour)
	require.NoError(t, err)
	c := newClient(t, waitLimit)
	sent := make(chan error, 1)
	go func() {
		_, err := send(t, c, http.MethodPost, p.URL()+"/x", "a1", "", nil)
		sent <- err
	}()
	recv(t, tg.entered, "request at the target")
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	err = recv(t, closed, "Close to return before the forward timeout")
	require.Error(t, err, "an exchange was cut")
	assert.Contains(t, err.Error(), "still in progress")
	recv(t, sent, "the client's end")
}
