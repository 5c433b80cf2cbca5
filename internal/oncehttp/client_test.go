package oncehttp_test

import (
	"context"
	"fmt"
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

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// connServer is an httptest server that counts the connections it
// accepted and learns when one is closed by the client.
type connServer struct {
	srv    *httptest.Server
	mu     sync.Mutex
	opened int
	closed chan struct{}
}

func newConnServer(t *testing.T, h http.HandlerFunc) *connServer {
	t.Helper()
	s := &connServer{closed: make(chan struct{}, 64)}
	s.srv = httptest.NewUnstartedServer(h)
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.mu.Lock()
			s.opened++
			s.mu.Unlock()
		case http.StateClosed:
			s.closed <- struct{}{}
		}
	}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

func (s *connServer) conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened
}

func get(t *testing.T, c *oncehttp.Client, url string, readAll bool) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := c.Do(req, false)
	require.NoError(t, err)
	defer resp.Body.Close()
	if !readAll {
		return resp, ""
	}
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// TestAConnectionIsReusedOnlyWhenItsReplyWasReadWhole: replies read to
// the end share one connection; a reply left unread, or one whose server
// asked to close, costs its connection, which the next request does not
// get.
func TestAConnectionIsReusedOnlyWhenItsReplyWasReadWhole(t *testing.T) {
	s := newConnServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		_, _ = io.WriteString(w, strings.Repeat("x", 100))
	})
	c := &oncehttp.Client{}
	defer c.Close()
	for range 3 {
		_, body := get(t, c, s.srv.URL+"/", true)
		assert.Len(t, body, 100)
	}
	assert.Equal(t, 1, s.conns(), "replies read whole share a connection")
	get(t, c, s.srv.URL+"/", false) // closed unread
	get(t, c, s.srv.URL+"/", true)
	assert.Equal(t, 2, s.conns(), "a reply left unread costs its connection")
	get(t, c, s.srv.URL+"/close", true)
	get(t, c, s.srv.URL+"/", true)
	assert.Equal(t, 3, s.conns(), "a connection the server asked to close is not reused")
}

// TestAConnectionIdlePastItsRequestsDeadlineIsReused: a request's
// deadline is the connection's while the request lasts only; one that
// passes while the connection is idle does not cost it its reuse.
func TestAConnectionIdlePastItsRequestsDeadlineIsReused(t *testing.T) {
	s := newConnServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	c := &oncehttp.Client{}
	defer c.Close()
	dl := time.Now().Add(100 * time.Millisecond)
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	defer cancel()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL, nil)
	require.NoError(t, err)
	resp, err := c.DoContext(ctx, req, false)
	require.NoError(t, err)
	_, _ = io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	time.Sleep(time.Until(dl) + 20*time.Millisecond) // the condition under test: the deadline has passed
	get(t, c, s.srv.URL+"/", true)
	assert.Equal(t, 1, s.conns(), "the idle connection is reused")
}

// TestIdleConnectionsAreClosedByTheClient: an idle connection is closed
// by the client after IdleTimeout, and at once by CloseIdle.
func TestIdleConnectionsAreClosedByTheClient(t *testing.T) {
	s := newConnServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	c := &oncehttp.Client{IdleTimeout: 20 * time.Millisecond}
	defer c.Close()
	get(t, c, s.srv.URL, true)
	select {
	case <-s.closed:
	case <-time.After(waitLimit):
		t.Fatal("the idle connection was not closed after IdleTimeout")
	}
	c.IdleTimeout = time.Hour
	get(t, c, s.srv.URL, true)
	c.CloseIdle()
	select {
	case <-s.closed:
	case <-time.After(waitLimit):
		t.Fatal("CloseIdle did not close the idle connection")
	}
}

// headerServer answers every request with the header lines h.
func headerServer(t *testing.T, h string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				_, _ = c.Read(buf)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n"+h+"Content-Length: 2\r\n\r\nok")
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return "http://" + ln.Addr().String()
}

// TestHeaderSectionsAreCapped: a reply with one header line of 10 MB, or
// with 5,000 short lines, is an error that names the cap it went over; one
// just within both caps is read whole.
func TestHeaderSectionsAreCapped(t *testing.T) {
	within := strings.Repeat("X-Pad: "+strings.Repeat("p", 40)+"\r\n", oncehttp.MaxHeaderLines-10)
	require.Less(t, len(within), oncehttp.MaxHeaderBytes)
	for _, tc := range []struct {
		name, header, err string
	}{
		{"one 10 MB line", "X-Flood: " + strings.Repeat("f", 10<<20) + "\r\n", "over 64 KiB"},
		{"5000 short lines", strings.Repeat("X-F: 1\r\n", 5000), "over 1000 lines"},
		{"within the caps", within, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &oncehttp.Client{}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, headerServer(t, tc.header), nil)
			require.NoError(t, err)
			resp, err := c.Do(req, false)
			if tc.err == "" {
				require.NoError(t, err)
				defer resp.Body.Close()
				assert.Len(t, resp.Header.Values("X-Pad"), oncehttp.MaxHeaderLines-10)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, oncehttp.ErrHeaderTooLarge)
			assert.Contains(t, err.Error(), tc.err)
			assert.True(t, oncehttp.Sent(err), "the request went out: its outcome is unknown")
		})
	}
}

// TestAFailedRequestSaysHowFarItGot: a refused connection is not dialed,
// a request given up before it was written is not sent; neither is an
// *Error with Sent.
func TestAFailedRequestSaysHowFarItGot(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	c := &oncehttp.Client{}
	defer c.Close()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	_, err = c.Do(req, false)
	require.Error(t, err)
	assert.False(t, oncehttp.Dialed(err), "%v", err)
	assert.False(t, oncehttp.Sent(err))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	_, err = c.Do(req, false)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, oncehttp.Sent(err))

	_, err = c.Do(httptest.NewRequest(http.MethodGet, "ftp://example.invalid/", nil), false)
	assert.ErrorContains(t, err, "expected an http:// or https:// URL", fmt.Sprint(err))
}

// A body closed before its end gives its connection's buffers to the
// next connection: reading it after Close must fail, not read from
// another reply, and a Close while a read waits must end that read.
func TestABodyClosedEarlyReadsNothingMore(t *testing.T) {
	release := make(chan struct{})
	s := newConnServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			w.(http.Flusher).Flush()
			<-release
			return
		}
		_, _ = io.WriteString(w, strings.Repeat(r.URL.Path[1:], 40000))
	})
	t.Cleanup(func() { close(release) })
	c := &oncehttp.Client{}
	t.Cleanup(c.Close)
	open := func(path string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
		require.NoError(t, err)
		resp, err := c.Do(req, false)
		require.NoError(t, err)
		return resp
	}

	first := open("/a")
	buf := make([]byte, 10)
	_, err := io.ReadFull(first.Body, buf)
	require.NoError(t, err)
	require.NoError(t, first.Body.Close())
	// A fresh connection, on the buffers the first one gave back.
	second, body := get(t, c, s.srv.URL+"/b", true)
	require.NoError(t, second.Body.Close())
	assert.Equal(t, strings.Repeat("b", 40000), body)
	n, err := first.Body.Read(buf)
	assert.Zero(t, n)
	assert.Error(t, err, "a read after Close")

	slow := open("/slow")
	read := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(slow.Body)
		read <- err
	}()
	// The read waits on the connection whether it has begun yet or not:
	// Close ends it either way.
	require.NoError(t, slow.Body.Close())
	select {
	case err := <-read:
		assert.Error(t, err, "a read cut by Close")
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the read under way")
	}
	_, body = get(t, c, s.srv.URL+"/c", true)
	assert.Equal(t, strings.Repeat("c", 40000), body)
}

// TestReadAllTakesTheAnnouncedLengthUpToACap: a body whose length was
// announced is read into one buffer of that length; one that announces
// more than it sends gets a buffer of at most 64 KiB before its bytes
// come, whatever it announced; and the limit holds.
func TestReadAllTakesTheAnnouncedLengthUpToACap(t *testing.T) {
	b, err := oncehttp.ReadAll(strings.NewReader("0123456789"), 10, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b))
	assert.Equal(t, 11, cap(b), "one buffer of the announced length and a byte")

	b, err = oncehttp.ReadAll(strings.NewReader("short"), 1<<30, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, "short", string(b))
	assert.LessOrEqual(t, cap(b), 64<<10+1, "a length announced and not sent is not allocated")

	b, err = oncehttp.ReadAll(strings.NewReader(strings.Repeat("x", 100)), -1, 40)
	require.NoError(t, err)
	assert.Len(t, b, 40)
}

// deadlineOnly is a context with a deadline and no Done channel, as the
// fault proxy gives its forwards.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (d deadlineOnly) Deadline() (time.Time, bool) { return d.at, true }
func (d deadlineOnly) Done() <-chan struct{}       { return nil }
func (d deadlineOnly) Err() error                  { return nil }

// TestAbortEndsRequestsThatNothingElseEnds: a request whose context has
// no Done channel is ended by Abort, whether it waits for a reply or for
// its connection; every request after fails at once.
func TestAbortEndsRequestsThatNothingElseEnds(t *testing.T) {
	ctx := deadlineOnly{Context: context.Background(), at: time.Now().Add(time.Hour)}
	entered := make(chan struct{}, 1)
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-hold
	}))
	defer srv.Close()
	defer close(hold) // before the server's Close, which waits for its handlers

	t.Run("waiting for the reply", func(t *testing.T) {
		c := &oncehttp.Client{}
		defer c.Close()
		errs := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
			_, err := c.DoContext(ctx, req, false)
			errs <- err
		}()
		await(t, entered, "the request at the server")
		c.Abort()
		err := await(t, errs, "Abort to end the request")
		require.ErrorIs(t, err, oncehttp.ErrAborted)
		assert.True(t, oncehttp.Sent(err), "it was written whole")
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		_, err = c.DoContext(ctx, req, false)
		require.ErrorIs(t, err, oncehttp.ErrAborted, "a request after Abort")
		assert.False(t, oncehttp.Sent(err))
	})
	t.Run("waiting for its connection", func(t *testing.T) {
		dialing := make(chan struct{}, 1)
		c := &oncehttp.Client{Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			dialing <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
		errs := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:9/", nil)
			_, err := c.DoContext(ctx, req, false)
			errs <- err
		}()
		await(t, dialing, "a dial")
		c.Abort()
		err := await(t, errs, "Abort to end the dial")
		assert.False(t, oncehttp.Dialed(err), "it never had a connection: %v", err)
	})
}

// await returns what ch carries, or fails the test once waitLimit has
// passed without it: a bound on a hang, not a timing assertion.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("waited %s for %s", waitLimit, what)
		var zero T
		return zero
	}
}
