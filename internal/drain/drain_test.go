package drain_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/drain"
)

// serve serves h, counted by a new Tracker, on a loopback port.
func serve(t *testing.T, h http.Handler) (*http.Server, *drain.Tracker, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	tr := &drain.Tracker{}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	tr.Track(srv)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(tr.Listener(ln)) }()
	t.Cleanup(func() {
		_ = srv.Close()
		assert.ErrorIs(t, <-served, http.ErrServerClosed, "the server saw its listener closed as its own")
	})
	return srv, tr, ln.Addr().String()
}

// A connection that never sent a request does not hold Close: Shutdown
// would wait for it to be five seconds old.
func TestCloseIgnoresUnusedConnections(t *testing.T) {
	srv, tr, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	resp, err := http.Get("http://" + addr)
	require.NoError(t, err)
	_ = resp.Body.Close()
	unused, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer unused.Close()

	done := make(chan error, 1)
	go func() { done <- drain.Close(srv, tr, time.Minute) }()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(4 * time.Second):
		t.Fatal("Close waited for a connection that never sent a request")
	}
	// The unused connection was cut.
	require.NoError(t, unused.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = unused.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF)
}

// A request in flight holds Close until it ends; Wait says how many are
// in flight when it gives up.
func TestCloseWaitsForRequestsInFlight(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	srv, tr, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		_, _ = io.WriteString(w, "done")
	}))
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + addr)
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-entered
	assert.Equal(t, 1, tr.InFlight())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorContains(t, tr.Wait(ctx), "1 requests still in flight")

	done := make(chan error, 1)
	go func() { done <- drain.Close(srv, tr, time.Minute) }()
	// Close stops accepting before it waits.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		_ = c.Close()
		require.True(t, time.Now().Before(deadline), "Close never stopped the listener")
	}
	select {
	case err := <-done:
		t.Fatalf("Close returned (%v) while a request was in flight", err)
	default:
	}
	close(release)
	assert.Equal(t, "done", <-got, "the request in flight got its whole reply")
	assert.NoError(t, <-done)
	assert.Equal(t, 0, tr.InFlight())
}

// A request that outlives the timeout is cut, and Close says so.
func TestCloseCutsWhatOutlivesTheTimeout(t *testing.T) {
	entered := make(chan struct{})
	srv, tr, addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
	}))
	errs := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + addr)
		if err == nil {
			resp.Body.Close()
		}
		errs <- err
	}()
	<-entered
	err := drain.Close(srv, tr, 10*time.Millisecond)
	assert.ErrorContains(t, err, "still in flight")
	assert.Error(t, <-errs, "the client's request was cut")
}
