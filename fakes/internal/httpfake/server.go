package httpfake

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/bubble"
	"github.com/idemcheck/idemcheck/internal/drain"
	"github.com/idemcheck/idemcheck/internal/memnet"
)

// CloseTimeout bounds how long Close waits for in-flight requests before it
// cuts their connections.
const CloseTimeout = 5 * time.Second

// CheckLoopback returns an error unless addr is host:port with a loopback
// host. name prefixes the error (the fake's name).
func CheckLoopback(name, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s: listen address %q is not host:port (%v); use 127.0.0.1:0 for a free port", name, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: listen address %q is not loopback; a fake must not be reachable from other hosts: use 127.0.0.1:PORT, [::1]:PORT or localhost:PORT", name, addr)
}

// Listen listens on addr, which must be loopback, and checks what
// "localhost" resolved to.
func Listen(name, addr string) (net.Listener, error) {
	if err := CheckLoopback(name, addr); err != nil {
		return nil, err
	}
	ln, err := bubble.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %q: %w", name, addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("%s: listen address %q resolved to %s, which is not loopback; use 127.0.0.1:PORT or [::1]:PORT", name, addr, ln.Addr())
	}
	return ln, nil
}

// Server serves one handler on a loopback listener until Close.
type Server struct {
	name      string
	url       string
	srv       *http.Server
	cancel    context.CancelFunc
	closing   chan struct{}
	serveDone chan struct{}
	serveErr  error
	ln        net.Listener
	// mem listens in memory at ln's address, for the clients of this
	// process that dial through memnet (a Go handler under test); nil
	// if the address could not be registered.
	mem *memnet.Listener

	// inflight counts the requests being served, for Close.
	inflight drain.Tracker

	closeOnce sync.Once
	closeErr  error
}

// Serve serves h on ln in a goroutine until Close: NewServer, then Start.
// A fake whose handlers use the returned Server (Faults does) must call
// NewServer, keep it, then Start, so that no request sees it unset.
func Serve(name string, ln net.Listener, h http.Handler) *Server {
	s := NewServer(name, ln, h)
	s.Start()
	return s
}

// NewServer prepares a server for h on ln without serving yet, so that a
// fake can keep a reference to it, which its handlers use, before the first
// request can arrive.
func NewServer(name string, ln net.Listener, h http.Handler) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		name:      name,
		url:       "http://" + ln.Addr().String(),
		cancel:    cancel,
		closing:   make(chan struct{}),
		serveDone: make(chan struct{}),
		ln:        ln,
	}
	s.srv = &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnContext:       watchedConnContext,
	}
	s.srv.Handler = h
	s.inflight.Track(s.srv)
	s.mem, _ = memnet.Listen(ln.Addr().String())
	return s
}

// Start serves in a goroutine until Close, on the loopback listener and
// in memory at its address.
func (s *Server) Start() {
	memDone := make(chan struct{})
	if s.mem != nil {
		go func() {
			defer close(memDone)
			_ = s.srv.Serve(s.inflight.Listener(s.mem))
		}()
	} else {
		close(memDone)
	}
	go func() {
		defer close(s.serveDone)
		if err := s.srv.Serve(watchListener{s.inflight.Listener(s.ln)}); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
		<-memDone
	}()
}

// URL is the base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url }

// Closing is closed when Close starts: injected delays and hangs end then,
// so that Close need not wait for them.
func (s *Server) Closing() <-chan struct{} { return s.closing }

// Wait blocks for d, or until ctx is done or the server starts closing. It
// reports whether the full delay elapsed.
func (s *Server) Wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	}
}

// Close stops accepting, ends injected waits, waits up to CloseTimeout for
// in-flight requests, then cuts what is left. It is idempotent: later calls
// return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		err := drain.Close(s.srv, &s.inflight, CloseTimeout)
		if err != nil {
			err = fmt.Errorf("%s: closing %s (is a ledger observer blocked?): %w", s.name, s.url, err)
		}
		s.cancel()
		<-s.serveDone
		if err == nil && s.serveErr != nil {
			err = fmt.Errorf("%s: serve %s: %w", s.name, s.url, s.serveErr)
		}
		s.closeErr = err
	})
	return s.closeErr
}

// TB is the part of *testing.T, *testing.B and similar types that Start
// uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Start is a fake's New for tests: it starts the fake with at most one
// options value, fails tb if it cannot start, and closes it when tb's test
// ends. name is the fake's package name, for messages.
func Start[O any, S interface{ Close() error }](tb TB, name string, newFake func(O) (S, error), opts []O) S {
	tb.Helper()
	var zero S
	if len(opts) > 1 {
		tb.Fatalf("%s.Start: got %d Options, want at most 1", name, len(opts))
		return zero
	}
	var o O
	if len(opts) == 1 {
		o = opts[0]
	}
	s, err := newFake(o)
	if err != nil {
		tb.Fatalf("%s.Start: %v", name, err)
		return zero
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Fatalf("%s.Start cleanup: %v", name, err)
		}
	})
	return s
}
