package http_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// waitLimit bounds every wait on an event: a deadline for a hang, not a
// timing assertion.
const waitLimit = 5 * time.Second

// seen is one request as the target server received it.
type seen struct {
	Method      string
	Path        string // decoded
	EscapedPath string // as on the wire
	Query       url.Values
	Header      http.Header
	Body        string
	CtxErr      error  // the request context's error when the handler finished
	Host        string // the request's Host
}

// server is an httptest server standing for the system under test. It
// records every request; reply writes the answer.
type server struct {
	srv     *httptest.Server
	entered chan seen // each request as the handler starts
	done    chan seen // each request once answered

	mu   sync.Mutex
	reqs []seen
}

// created is the reply of a correct target's first execution.
const created = `{"effect":"created","data":{"id":"ord_1"}}`

// replyWith answers status, body, and headers given as name, value pairs.
func replyWith(status int, body string, kv ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(kv); i += 2 {
			w.Header().Add(kv[i], kv[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// newServer starts a target server; reply nil answers 201 created. The
// handler waits for release, if not nil, before replying.
func newServer(t testing.TB, reply http.HandlerFunc, release <-chan struct{}) *server {
	t.Helper()
	if reply == nil {
		reply = replyWith(http.StatusCreated, created, "Content-Type", "application/json")
	}
	s := &server{entered: make(chan seen, 64), done: make(chan seen, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		x := seen{Host: r.Host,
			Method: r.Method, Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(),
			Query: r.URL.Query(), Header: r.Header.Clone(), Body: string(body),
		}
		select {
		case s.entered <- x:
		default:
		}
		if release != nil {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		x.CtxErr = r.Context().Err()
		reply(w, r)
		s.mu.Lock()
		s.reqs = append(s.reqs, x)
		s.mu.Unlock()
		select {
		case s.done <- x:
		default:
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// seenAll returns the requests answered so far.
func (s *server) seenAll() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

// mustNew makes an adapter for cfg and closes it at cleanup.
func mustNew(t testing.TB, cfg httptarget.Config) *httptarget.Target {
	t.Helper()
	tg, err := httptarget.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// oneOp is a config with a single mutating POST operation "create".
func oneOp(base string, op httptarget.Operation) httptarget.Config {
	if op.Name == "" {
		op.Name = "create"
	}
	return httptarget.Config{Name: "shop", BaseURL: base, Operations: []httptarget.Operation{op}}
}

// call makes one attempt, failing the test if Call does not return in time.
func call(t testing.TB, tg harness.Target, c harness.Call) harness.Reply {
	t.Helper()
	if c.ID == "" {
		c.ID = "run-1-1"
	}
	if c.Operation == "" {
		c.Operation = "create"
	}
	got := make(chan harness.Reply, 1)
	go func() { got <- tg.Call(context.Background(), c) }()
	return recv(t, got, "Call to return")
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

// downURL is a base URL where nothing listens.
func downURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}

// rawServer is a hand-written HTTP/1.1 server for targets that misbehave
// at the connection level: handle gets each request read from a
// connection and returns false to drop it.
func rawServer(t testing.TB, handle func(c net.Conn, req *http.Request) bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					if !handle(c, req) {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}
