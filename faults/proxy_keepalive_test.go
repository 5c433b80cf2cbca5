package faults_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

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
