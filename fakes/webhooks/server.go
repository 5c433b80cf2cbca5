package webhooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// DefaultAddr is the listen address used when Options.Addr is empty.
const DefaultAddr = "127.0.0.1:0"

// DefaultKeyHeader is the header a delivery's idempotency key is read from.
const DefaultKeyHeader = "Idempotency-Key"

// MaxBodyBytes is the largest delivery body accepted; larger ones get 413.
const MaxBodyBytes = 1 << 20

// fakeName is the name of this fake in configuration and in the ledger.
const fakeName = "webhooks"

// Options configures a Server. The zero value is ready to use.
type Options struct {
	// Addr is the listen address; it must be loopback. Empty means
	// DefaultAddr.
	Addr string
	// Ledger is where deliveries are recorded. Nil means a new, private
	// ledger; pass one to share it between several fakes.
	Ledger *fakes.Ledger
	// IgnoreIdempotencyKeys records every delivery, keyed or not: a
	// receiver that does not de-duplicate.
	IgnoreIdempotencyKeys bool
	// KeyHeader is the header that carries a delivery's idempotency key;
	// empty means DefaultKeyHeader.
	KeyHeader string
	// ControlAddr, when set, serves the control API (the ledger, the fault
	// rules, the deliveries: see the package documentation) on a loopback
	// listener of its own; empty serves none. Addr never serves it, so
	// that a sender cannot disarm the faults armed for it.
	ControlAddr string
}

// TB is the part of *testing.T and *testing.B that Start uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Delivery is one webhook the sink recorded.
type Delivery struct {
	// ID is "dlv_" and a six-digit sequence number, per server.
	ID string `json:"id"`
	// Path is the request path, e.g. /hooks/orders.
	Path string `json:"path"`
	// Header is the request's headers as received.
	Header http.Header `json:"header"`
	// Body is the raw request body.
	Body string `json:"body"`
	// Key is the idempotency key header's value, "" if none.
	Key string `json:"key,omitempty"`
	// Markers are the intent markers found in the request.
	Markers []string `json:"markers,omitempty"`
	// Received is when the delivery was recorded.
	Received time.Time `json:"received"`
}

// Server is a webhook sink on loopback. Its methods are safe for concurrent
// use.
type Server struct {
	ignoreKeys bool
	keyHeader  string
	ledger     *fakes.Ledger
	rules      fakes.Rules
	keys       httpfake.Keys
	http       *httpfake.Server
	control    *httpfake.Server // nil without Options.ControlAddr

	mu         sync.Mutex
	deliveries []Delivery
	lastID     int
}

var (
	_ fakes.Fake        = (*Server)(nil)
	_ fakes.FireCounter = (*Server)(nil)
)

// New starts a sink as opts says: it listens at once and serves until
// Close.
func New(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := httpfake.Listen(fakeName, addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		ignoreKeys: opts.IgnoreIdempotencyKeys,
		keyHeader:  opts.KeyHeader,
		ledger:     opts.Ledger,
	}
	if s.keyHeader == "" {
		s.keyHeader = DefaultKeyHeader
	}
	if s.ledger == nil {
		s.ledger = fakes.NewLedger()
	}
	// The handlers read s.http: set it before the first request can come.
	s.http = httpfake.NewServer(fakeName, ln, s.routes())
	s.http.Start()
	if s.control, err = httpfake.ServeControl(fakeName, opts.ControlAddr, s.controlAPI()); err != nil {
		_ = s.http.Close()
		return nil, err
	}
	return s, nil
}

// Start is New for tests: it fails tb if the sink cannot start and closes
// it when the test ends. It takes at most one Options.
func Start(tb TB, opts ...Options) *Server {
	tb.Helper()
	return httpfake.Start(tb, "webhooks", New, opts)
}

// Name returns "webhooks".
func (s *Server) Name() string { return fakeName }

// URL returns the base URL; targets send webhooks to URL()+"/hooks/…".
func (s *Server) URL() string { return s.http.URL() }

// ControlURL returns the base URL of the control API, "" unless
// Options.ControlAddr was set.
func (s *Server) ControlURL() string { return httpfake.ControlURL(s.control) }

// Ledger returns the ledger deliveries are recorded in.
func (s *Server) Ledger() *fakes.Ledger { return s.ledger }

// Arm installs a downstream fault rule; each matching delivery consumes
// one use.
func (s *Server) Arm(r fakes.Rule) { s.rules.Arm(r) }

// Disarm removes every rule that has not fired yet.
func (s *Server) Disarm() { s.rules.Clear() }

// DisarmMarker removes the rules restricted to marker that have not fired
// yet.
func (s *Server) DisarmMarker(marker string) { s.rules.ClearMarker(marker) }

// Fired returns how many deliveries the rules armed for marker have acted
// on (see fakes.FireCounter).
func (s *Server) Fired(marker string) int { return s.rules.Fired(marker) }

// Close stops the sink: it ends injected delays and hangs, waits a few
// seconds for in-flight deliveries, then cuts the rest. It is idempotent.
func (s *Server) Close() error {
	return errors.Join(s.http.Close(), httpfake.CloseControl(s.control))
}

// Deliveries returns a copy of every delivery recorded, oldest first.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.deliveries))
	for i, d := range s.deliveries {
		d.Header = d.Header.Clone()
		d.Markers = append([]string(nil), d.Markers...)
		out[i] = d
	}
	return out
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/", s.handleDelivery)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		failure(http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s; send webhooks with POST /hooks/…", r.Method, r.URL.Path)).Write(w)
	})
	return http.MaxBytesHandler(mux, MaxBodyBytes)
}

// failure is an error reply: {"error":"…"}.
func failure(status int, msg string) httpfake.Reply {
	return httpfake.JSON(status, map[string]string{"error": msg})
}

var unavailable = failure(http.StatusServiceUnavailable, "injected: service unavailable")

func (s *Server) handleDelivery(w http.ResponseWriter, r *http.Request) {
	// Read into one buffer of the announced length; past the cap the
	// server's MaxBytesHandler fails the read.
	body, err := oncehttp.ReadAll(r.Body, r.ContentLength, MaxBodyBytes+1)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			failure(http.StatusRequestEntityTooLarge, fmt.Sprintf("body is larger than %d bytes", mbe.Limit)).Write(w)
			return
		}
		failure(http.StatusBadRequest, "cannot read the body: "+err.Error()).Write(w)
		return
	}
	markers := httpfake.Markers(r, body)
	httpfake.Faults{
		Rules: &s.rules, Server: s.http, Ledger: s.ledger, Unavailable: unavailable,
		Closing: failure(http.StatusServiceUnavailable, "the sink is shutting down"),
	}.Serve(w, r, markers, func() httpfake.Reply { return s.receive(r, body, markers) })
}

// receive de-duplicates by key, if any, around record.
func (s *Server) receive(r *http.Request, body []byte, markers []string) httpfake.Reply {
	key := r.Header.Get(s.keyHeader)
	if key == "" || s.ignoreKeys {
		return s.record(r, body, markers, key)
	}
	if len(key) > httpfake.MaxKeyLen {
		return failure(http.StatusBadRequest, fmt.Sprintf("%s is %d characters long; the maximum is %d", s.keyHeader, len(key), httpfake.MaxKeyLen))
	}
	sum := sha256.Sum256(body)
	fp := r.URL.Path + "\n" + hex.EncodeToString(sum[:])
	switch res, stored := s.keys.Claim(key, fp); res {
	case httpfake.InFlight:
		return failure(http.StatusConflict, fmt.Sprintf("a delivery with %s %s is still in flight; retry after it completes", s.keyHeader, strconv.Quote(key)))
	case httpfake.Mismatch:
		return failure(http.StatusUnprocessableEntity, fmt.Sprintf("%s %s was first used for another path or body", s.keyHeader, strconv.Quote(key)))
	case httpfake.Done:
		return stored
	}
	rp := s.record(r, body, markers, key)
	s.keys.Complete(key, rp)
	return rp
}

// record stores the delivery and records it in the ledger before any
// reply is written.
func (s *Server) record(r *http.Request, body []byte, markers []string, key string) httpfake.Reply {
	s.mu.Lock()
	s.lastID++
	d := Delivery{
		ID:       fmt.Sprintf("dlv_%06d", s.lastID),
		Path:     r.URL.Path,
		Header:   r.Header.Clone(),
		Body:     string(body),
		Key:      key,
		Markers:  markers,
		Received: time.Now(),
	}
	s.deliveries = append(s.deliveries, d)
	s.mu.Unlock()
	// Not under s.mu: observers may block.
	e := s.ledger.Record(fakes.Effect{
		Fake: fakeName, Kind: "delivery", ID: d.ID, Markers: markers, Key: key,
		Detail: map[string]string{"path": d.Path, "bytes": strconv.Itoa(len(body))},
	})
	rp := httpfake.JSON(http.StatusOK, map[string]any{"received": true, "id": d.ID})
	rp.Effect = e.Seq
	return rp
}

func (s *Server) handleList(w http.ResponseWriter, _ *http.Request) {
	ds := s.Deliveries()
	httpfake.JSON(http.StatusOK, map[string]any{"deliveries": ds}).Write(w)
}

// controlAPI is the sink's control API, served only with
// Options.ControlAddr, with GET /_idemcheck/deliveries besides.
func (s *Server) controlAPI() httpfake.Control {
	return httpfake.Control{
		Ledger: s.ledger, Arm: s.Arm, Disarm: s.Disarm, Fired: s.Fired,
		Failure: failure,
		Routes: func(mux *http.ServeMux) {
			mux.HandleFunc("GET "+httpfake.ControlPrefix+"deliveries", s.handleList)
		},
	}
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
