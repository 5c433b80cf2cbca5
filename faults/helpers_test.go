package faults_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

// waitLimit bounds every wait on an event in these tests. It is a deadline
// for a hang, not a timing assertion: on a healthy machine each event comes
// in milliseconds.
const waitLimit = 5 * time.Second

// seen is one request as the target received it.
type seen struct {
	Method      string
	Path        string // decoded
	EscapedPath string // as sent on the wire
	RawQuery    string
	Header      http.Header
	Body        []byte
	// CtxErr is the request context's error when the handler finished:
	// non-nil if the proxy cancelled the forwarded request.
	CtxErr error
}

// target is an httptest server standing for the system under test: it
// records every request, and can be made to hold its reply until released.
type target struct {
	srv *httptest.Server
	// entered receives each request as the handler starts.
	entered chan seen
	// done receives each request once the handler has written its reply.
	done chan seen

	mu   sync.Mutex
	reqs []seen
}

// targetOpts shapes a target's behaviour.
type targetOpts struct {
	// reply writes the answer; nil means 201 {"effect":"created"}.
	reply http.HandlerFunc
	// release, if set, is waited on before replying (or the request's
	// context, whichever comes first).
	release <-chan struct{}
	// quiet drops the entered and done events (for benchmarks, which do
	// not read them).
	quiet bool
}

func newTarget(t testing.TB, o targetOpts) *target {
	t.Helper()
	tg := &target{entered: make(chan seen, 64), done: make(chan seen, 64)}
	reply := o.reply
	if reply == nil {
		reply = func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"effect":"created","data":{"id":"ord_1"}}`)
		}
	}
	tg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := seen{
			Method: r.Method, Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(),
			RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body,
		}
		if !o.quiet {
			tg.entered <- s
		}
		if o.release != nil {
			select {
			case <-o.release:
			case <-r.Context().Done():
			}
		}
		s.CtxErr = r.Context().Err()
		reply(w, r)
		if o.quiet {
			return
		}
		tg.mu.Lock()
		tg.reqs = append(tg.reqs, s)
		tg.mu.Unlock()
		tg.done <- s
	}))
	t.Cleanup(tg.srv.Close)
	return tg
}

// completed returns the requests whose handler has finished.
func (tg *target) completed() []seen {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]seen(nil), tg.reqs...)
}

// mustProxy starts a proxy in front of targetURL and closes it at cleanup.
func mustProxy(t testing.TB, targetURL string, forwardTimeout time.Duration) *faults.Proxy {
	t.Helper()
	p, err := faults.NewProxy(targetURL, forwardTimeout)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// front mounts p's handler in a server of the test's own, so the test
// learns the moment the proxy's view of the client's request is cancelled
// (the client went away), which the Proxy does not expose.
type front struct {
	URL string
	// clientGone receives the attempt id when the proxy's view of the
	// client's request is cancelled (the client went away).
	clientGone chan string
}

func mustFront(t testing.TB, p *faults.Proxy) *front {
	t.Helper()
	f := &front{clientGone: make(chan string, 64)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(faults.AttemptHeader)
		finished := make(chan struct{})
		go func() {
			select {
			case <-r.Context().Done():
				f.clientGone <- id
			case <-finished:
			}
		}()
		defer close(finished)
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// newClient returns a client with its own connections, closed at cleanup.
func newClient(t testing.TB, timeout time.Duration) *http.Client {
	t.Helper()
	tr := &http.Transport{Proxy: nil, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: timeout}
}

// reply is what a client got.
type reply struct {
	Status int
	Header http.Header
	Body   string
}

// send makes one request with the attempt header set to id.
func send(t testing.TB, c *http.Client, method, url, id string, body string, hdr http.Header) (reply, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header[k] = v
	}
	if id != "" {
		req.Header.Set(faults.AttemptHeader, id)
	}
	resp, err := c.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{Status: resp.StatusCode, Header: resp.Header}, err
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}, nil
}

// mustSend is send that fails the test on a transport error.
func mustSend(t testing.TB, c *http.Client, method, url, id, body string, hdr http.Header) reply {
	t.Helper()
	r, err := send(t, c, method, url, id, body, hdr)
	require.NoError(t, err)
	return r
}

// recv waits for a value on ch, failing the test after waitLimit.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("no %s within %v", what, waitLimit)
		var zero T
		return zero
	}
}

// downURL returns a base URL on which nothing listens: a listener's
// address, the listener closed.
func downURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}

// rawTarget is a hand-written HTTP/1.1 server, for targets that misbehave
// at the connection level. Each request is passed to handle with the
// connection; handle returns false to stop serving that connection.
type rawTarget struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	keys []string // the Idempotency-Key of every request read, in order
}

func newRawTarget(t testing.TB, handle func(rt *rawTarget, c net.Conn, req *http.Request) bool) *rawTarget {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rt := &rawTarget{ln: ln}
	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			rt.wg.Add(1)
			go func() {
				defer rt.wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					rt.mu.Lock()
					rt.keys = append(rt.keys, req.Header.Get("Idempotency-Key"))
					rt.mu.Unlock()
					if !handle(rt, c, req) {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		rt.wg.Wait()
	})
	return rt
}

func (rt *rawTarget) URL() string { return "http://" + rt.ln.Addr().String() }

// count returns how many requests carried key.
func (rt *rawTarget) count(key string) int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	n := 0
	for _, k := range rt.keys {
		if k == key {
			n++
		}
	}
	return n
}

// errIsTimeout reports whether err is a client timeout.
func errIsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
