package faults_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

// TestProxyKeepsConnectionsToTheTargetAndClosesThemFirst: attempts in a
// row share one connection to the target, and closing the proxy closes it
// from the proxy's side (the target sees it closed without closing it), so
// that its TIME_WAIT is the proxy's; a reset fault resets only the
// client's connection.
func TestProxyKeepsConnectionsToTheTargetAndClosesThemFirst(t *testing.T) {
	var mu sync.Mutex
	opened := 0
	closed := make(chan struct{}, 8)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"effect":"created"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			mu.Lock()
			opened++
			mu.Unlock()
		case http.StateClosed:
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p, err := faults.NewProxy(srv.URL, waitLimit)
	require.NoError(t, err)
	c := newClient(t, waitLimit)
	for i, f := range []faults.ProxyFault{nil, &faults.Reset{}, nil, &faults.LostResponse{Status: 503}} {
		id := "a" + string(rune('1'+i))
		p.Arm(id, f)
		_, _ = send(t, c, http.MethodPost, p.URL()+"/x", id, "{}", nil)
		rep, ok := p.Report(t.Context(), id, waitLimit)
		require.True(t, ok)
		assert.True(t, rep.Forwarded)
	}
	mu.Lock()
	assert.Equal(t, 1, opened, "four attempts, faulted or not, on one connection to the target")
	mu.Unlock()
	select {
	case <-closed:
		t.Fatal("the connection to the target closed before the proxy did")
	default:
	}
	require.NoError(t, p.Close())
	recv(t, closed, "the proxy to close its connection to the target")
}

// TestProxyReadsAClientsConnectionFieldAsNetHTTPDoes: a request whose
// Connection field holds "clo\u017fe" (a long s, which Unicode case folding
// makes "close", and HTTP's ASCII-only tokens do not) keeps its connection
// open, as net/http's server would: a second request pipelined behind it
// gets its reply.
func TestProxyReadsAClientsConnectionFieldAsNetHTTPDoes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	p, err := faults.NewProxy(srv.URL, waitLimit)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(waitLimit)))
	_, err = io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: clo\u017fe\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	for _, path := range []string{"/a", "/b"} {
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err, "the reply to %s", path)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, "ok "+path, string(b))
		assert.False(t, resp.Close, "the connection stays open after %s", path)
	}
}
