package payments

import (
	"context"
	"errors"
	"net/http"
	"sync"

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
	// ControlAddr, when set, serves the control API (the ledger, the fault
	// rules: see the package documentation) on a loopback listener of its
	// own; empty serves none. Addr never serves it, so that a target cannot
	// disarm the faults armed for it. idemcheck run arms rules in-process
	// and leaves it empty; idemcheck fakes sets it for hand use.
	ControlAddr string
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
	keys       httpfake.Keys
	http       *httpfake.Server
	control    *httpfake.Server // nil without Options.ControlAddr

	mu      sync.Mutex
	charges []Charge // in creation order
	lastID  int
}

var (
	_ fakes.Fake        = (*Server)(nil)
	_ fakes.FireCounter = (*Server)(nil)
)

// New starts a server as opts says: it listens at once and serves in a
// goroutine until Close. It fails if opts.Addr is not a loopback address or
// cannot be listened on.
func New(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := httpfake.Listen(fakeName, addr)
	if err != nil {
		return nil, err
	}
	ledger := opts.Ledger
	if ledger == nil {
		ledger = fakes.NewLedger()
	}
	s := &Server{ignoreKeys: opts.IgnoreIdempotencyKeys, ledger: ledger}
	s.rules.Seed(opts.Seed)
	// Assigned before serving: the handlers use s.http.
	s.http = httpfake.NewServer(fakeName, ln, s.routes())
	s.http.Start()
	if s.control, err = httpfake.ServeControl(fakeName, opts.ControlAddr, s.controlAPI()); err != nil {
		_ = s.http.Close()
		return nil, err
	}
	return s, nil
}

// Start is New for tests: it fails tb if the server cannot start and closes
// the server when tb's test ends. It takes at most one Options.
func Start(tb TB, opts ...Options) *Server {
	tb.Helper()
	return httpfake.Start(tb, "payments", New, opts)
}

// Name returns "payments", the fake's name in configuration and in the
// ledger.
func (s *Server) Name() string { return fakeName }

// URL returns the base URL targets should call, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.http.URL() }

// ControlURL returns the base URL of the control API, "" unless
// Options.ControlAddr was set.
func (s *Server) ControlURL() string { return httpfake.ControlURL(s.control) }

// Ledger returns the ledger the server records its charges in.
func (s *Server) Ledger() *fakes.Ledger { return s.ledger }

// Arm installs a downstream fault rule. Rules are consulted in the order
// they were armed; each matching POST /v1/charges consumes one use.
func (s *Server) Arm(r fakes.Rule) { s.rules.Arm(r) }

// Disarm removes every rule that has not fired yet.
func (s *Server) Disarm() { s.rules.Clear() }

// DisarmMarker removes the rules restricted to marker that have not fired
// yet.
func (s *Server) DisarmMarker(marker string) { s.rules.ClearMarker(marker) }

// Fired returns how many requests the rules armed for marker have acted
// on (see fakes.FireCounter).
func (s *Server) Fired(marker string) int { return s.rules.Fired(marker) }

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
	return errors.Join(s.http.Close(), httpfake.CloseControl(s.control))
}

// routes returns the server's HTTP handler.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.handleCreateCharge)
	mux.HandleFunc("GET /v1/charges", s.handleListCharges)
	mux.HandleFunc("GET /v1/charges/{id}", s.handleGetCharge)
	mux.HandleFunc("/", handleNotFound)
	return http.MaxBytesHandler(mux, MaxBodyBytes)
}

// Starter returns a fakes.Starter that starts the fake with opts, writing
// into the ledger it is given (in place of opts.Ledger).
func Starter(opts Options) fakes.Starter {
	return func(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		o := opts
		o.Ledger = l
		return New(o)
	}
}
