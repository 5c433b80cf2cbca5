package payments

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

// DefaultAddr is the listen address used when Options.Addr is empty: a free
// port on the IPv4 loopback interface.
const DefaultAddr = "127.0.0.1:0"

// MaxBodyBytes is the largest request body the server reads; larger bodies
// get 413.
const MaxBodyBytes = 1 << 20

// fakeName is the name of this fake in configuration and in the ledger.
const fakeName = "payments"

// closeTimeout bounds how long Close waits for in-flight requests before it
// cuts their connections.
const closeTimeout = 5 * time.Second

// Options configures a Server. The zero value is ready to use.
type Options struct {
	// Addr is the listen address. Empty means DefaultAddr. It must be a
	// loopback address (127.0.0.0/8, ::1 or localhost): New rejects any
	// other, so that a fake is never reachable from another host.
	Addr string
	// IgnoreIdempotencyKeys makes the server ignore the Idempotency-Key
	// header, so that every POST /v1/charges charges. It models a provider
	// without idempotency support, where only the target can prevent
	// double charges.
	IgnoreIdempotencyKeys bool
	// Ledger is where the server records its charges. Nil means a new,
	// private ledger; pass one to share it between several fakes.
	Ledger *fakes.Ledger
	// Seed seeds the source that probabilistic fault rules draw from
	// (fakes.Rule.Probability), so that a run's faults repeat with its seed.
	Seed uint64
}

// TB is the part of *testing.T, *testing.B and similar types that Start
// uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Server is a Stripe-like payments API on loopback that records every charge
// it makes in a ledger. Its methods are safe for concurrent use.
type Server struct {
	ignoreKeys bool
	ledger     *fakes.Ledger
	rules      fakes.Rules
	keys       keyStore

	url       string
	srv       *http.Server
	cancel    context.CancelFunc // cancels every request's context
	closing   chan struct{}      // closed when Close starts
	serveDone chan struct{}      // closed when Serve returns
	serveErr  error              // set before serveDone is closed

	closeOnce sync.Once
	closeErr  error

	mu      sync.Mutex
	charges []Charge // in creation order
	lastID  int
}

var _ fakes.Fake = (*Server)(nil)

// New starts a server as opts says: it listens at once and serves in a
// goroutine until Close. It fails if opts.Addr is not a loopback address or
// cannot be listened on.
func New(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	if err := httpfake.CheckLoopback(fakeName, addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("payments: listen on %q: %w", addr, err)
	}
	// "localhost" is resolved by Listen; check what it resolved to.
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return nil, fmt.Errorf("payments: listen address %q resolved to %s, which is not loopback; use 127.0.0.1:PORT or [::1]:PORT", addr, ln.Addr())
	}

	ledger := opts.Ledger
	if ledger == nil {
		ledger = fakes.NewLedger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		ignoreKeys: opts.IgnoreIdempotencyKeys,
		ledger:     ledger,
		url:        "http://" + ln.Addr().String(),
		cancel:     cancel,
		closing:    make(chan struct{}),
		serveDone:  make(chan struct{}),
	}
	s.rules.Seed(opts.Seed)
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		defer close(s.serveDone)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
	}()
	return s, nil
}

// Start is New for tests: it fails tb if the server cannot start and closes
// the server when tb's test ends. It takes at most one Options.
func Start(tb TB, opts ...Options) *Server {
	tb.Helper()
	if len(opts) > 1 {
		tb.Fatalf("payments.Start: got %d Options, want at most 1", len(opts))
		return nil
	}
	var o Options
	if len(opts) == 1 {
		o = opts[0]
	}
	s, err := New(o)
	if err != nil {
		tb.Fatalf("payments.Start: %v", err)
		return nil
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Fatalf("payments.Start cleanup: %v", err)
		}
	})
	return s
}

// Name returns "payments", the fake's name in configuration and in the
// ledger.
func (s *Server) Name() string { return fakeName }

// URL returns the base URL targets should call, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url }

// Ledger returns the ledger the server records its charges in.
func (s *Server) Ledger() *fakes.Ledger { return s.ledger }

// Arm installs a downstream fault rule. Rules are consulted in the order
// they were armed; each matching POST /v1/charges consumes one use.
func (s *Server) Arm(r fakes.Rule) { s.rules.Arm(r) }

// Disarm removes every rule that has not fired yet.
func (s *Server) Disarm() { s.rules.Clear() }

// Charges returns a copy of every charge made so far, oldest first.
func (s *Server) Charges() []Charge {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Charge, len(s.charges))
	for i, c := range s.charges {
		out[i] = c.clone()
	}
	return out
}

// Close stops the server. It stops accepting connections, cuts short any
// injected Delay, waits up to a few seconds for in-flight requests to
// finish, then closes every remaining connection. It is safe to call more
// than once; later calls return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		err := s.srv.Shutdown(ctx)
		if err != nil {
			err = fmt.Errorf("payments: requests to %s still in flight after %s (is a ledger observer blocked?): %w", s.url, closeTimeout, err)
		}
		s.cancel()
		if cerr := s.srv.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("payments: close %s: %w", s.url, cerr)
		}
		<-s.serveDone
		if err == nil && s.serveErr != nil {
			err = fmt.Errorf("payments: serve %s: %w", s.url, s.serveErr)
		}
		s.closeErr = err
	})
	return s.closeErr
}

// routes returns the server's HTTP handler.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.handleCreateCharge)
	mux.HandleFunc("GET /v1/charges", s.handleListCharges)
	mux.HandleFunc("GET /v1/charges/{id}", s.handleGetCharge)
	mux.HandleFunc("GET /_idemcheck/ledger", s.handleLedger)
	mux.HandleFunc("POST /_idemcheck/rules", s.handleArm)
	mux.HandleFunc("DELETE /_idemcheck/rules", s.handleDisarm)
	mux.HandleFunc("/", handleNotFound)
	return http.MaxBytesHandler(mux, MaxBodyBytes)
}
