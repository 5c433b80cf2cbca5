package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Options configure a server.
type Options struct {
	// Profile is one of Profiles.
	Profile string
	// Listen is a loopback host:port ("127.0.0.1:0" for any free port).
	Listen string
	// DSN is the database: postgres://… or sqlite:PATH.
	DSN string
	// Window is the other work a transfer does at the profile's window.
	Window time.Duration
}

// dbTimeout bounds one request's work in the database.
const dbTimeout = 10 * time.Second

// maxPage is the most transfers one page lists.
const maxPage = 100

// Serve runs the service until ctx is done; log receives what it says
// about its windows. ready, if not nil, is called with the address once
// connections are accepted.
func Serve(ctx context.Context, opts Options, log io.Writer, ready func(addr string)) error {
	if _, err := Describe(opts.Profile); err != nil {
		return err
	}
	db, err := refdb.Open(ctx, opts.DSN, 32, schema...)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		ln.Close()
		return fmt.Errorf("listen address %s is not loopback", ln.Addr())
	}
	h := &handler{profile: opts.Profile, store: &store{db: db, window: opts.Window, log: log}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /v1/transfers", h.create)
	mux.HandleFunc("GET /v1/transfers", h.list)
	mux.HandleFunc("GET /v1/stats", h.stats)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	<-served
	return err
}

type handler struct {
	profile string
	store   *store
}

type reply struct {
	OK     bool   `json:"ok"`
	Effect string `json:"effect,omitempty"`
	Data   any    `json:"data,omitempty"`
	Error  string `json:"error,omitempty"`
}

func send(w http.ResponseWriter, status int, rep reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(rep)
}

func fail(w http.ResponseWriter, status int, format string, args ...any) {
	send(w, status, reply{Error: fmt.Sprintf(format, args...)})
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	var t Transfer
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<12))
	dec.DisallowUnknownFields()
	var in struct {
		From   *int64 `json:"from"`
		To     *int64 `json:"to"`
		Amount *int64 `json:"amount"`
	}
	if err := dec.Decode(&in); err != nil {
		fail(w, http.StatusBadRequest, "body: %v: expected {\"from\": ACCOUNT, \"to\": ACCOUNT, \"amount\": CENTS} and nothing else", err)
		return
	}
	if in.From == nil || in.To == nil || in.Amount == nil || *in.Amount <= 0 || *in.From == *in.To {
		fail(w, http.StatusBadRequest, "from, to (another account) and a positive amount are required")
		return
	}
	t = Transfer{From: *in.From, To: *in.To, Amount: *in.Amount}
	if dry := r.URL.Query().Get("dry_run"); dry == "true" || dry == "1" {
		send(w, http.StatusOK, reply{OK: true, Effect: "would_create", Data: t})
		return
	}
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" {
		fail(w, http.StatusBadRequest, "an Idempotency-Key header is required")
		return
	}
	// The transfer runs to its end whether the client waits or not.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), dbTimeout+2*time.Minute)
	defer cancel()
	var out outcome
	var err error
	switch h.profile {
	case "correct":
		out, err = h.store.inOneTransaction(ctx, t, key, true)
	case "no-fingerprint":
		out, err = h.store.inOneTransaction(ctx, t, key, false)
	case "key-after-effect":
		out, err = h.store.keyAfterEffect(ctx, t, key)
	}
	switch {
	case errors.Is(err, errMismatch):
		fail(w, http.StatusUnprocessableEntity, "%v", err)
	case err != nil:
		fail(w, http.StatusServiceUnavailable, "database: %v", err)
	case out.created:
		send(w, http.StatusOK, reply{OK: true, Effect: "created", Data: out.transfer})
	default:
		w.Header().Set("Idempotent-Replayed", "true")
		send(w, http.StatusOK, reply{OK: true, Effect: "noop", Data: out.transfer})
	}
}

// list serves a page of transfers, and a Link header to the next one.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 || limit > maxPage {
		limit = 10
	}
	after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
	ctx, cancel := context.WithTimeout(r.Context(), dbTimeout)
	defer cancel()
	page, err := h.store.list(ctx, after, limit+1)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "database: %v", err)
		return
	}
	if len(page) > limit {
		page = page[:limit]
		next := *r.URL
		nq := next.Query()
		nq.Set("after", strconv.FormatInt(page[len(page)-1].ID, 10))
		nq.Set("limit", strconv.Itoa(limit))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", "<"+next.String()+`>; rel="next"`)
	}
	send(w, http.StatusOK, reply{OK: true, Effect: "noop", Data: page})
}

func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), dbTimeout)
	defer cancel()
	n, total, err := h.store.stats(ctx)
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "database: %v", err)
		return
	}
	send(w, http.StatusOK, reply{OK: true, Effect: "noop", Data: map[string]int64{"transfers": n, "total": total}})
}
