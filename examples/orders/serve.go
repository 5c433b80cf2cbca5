package orders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Options configure a server.
type Options struct {
	// Profile is one of Profiles.
	Profile string
	// Listen is a loopback host:port ("127.0.0.1:0" for any free port).
	Listen string
	// DSN is the database: postgres://… or sqlite:PATH.
	DSN string
	// Window is how long check-then-insert works between its check and
	// its insert.
	Window time.Duration
}

// DefaultWindow is the default Options.Window.
const DefaultWindow = 2 * time.Millisecond

// dbTimeout bounds one request's work in the database.
const dbTimeout = 10 * time.Second

// Serve runs the service until ctx is done. ready, if not nil, is called
// with the address once connections are accepted.
func Serve(ctx context.Context, opts Options, ready func(addr string)) error {
	create, unique, err := creatorFor(opts.Profile, opts.Window)
	if err != nil {
		return err
	}
	if opts.DSN == "" {
		return errors.New("no database: give --db postgres://… or sqlite:PATH (or $DATABASE_URL)")
	}
	st, err := openStore(ctx, opts.DSN, unique)
	if err != nil {
		return err
	}
	defer st.close()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		ln.Close()
		return fmt.Errorf("listen address %s is not loopback", ln.Addr())
	}
	h := &handler{store: st, create: create}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.HandleFunc("POST /v1/orders", h.createOrder)
	mux.HandleFunc("GET /v1/orders", h.listOrders)
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
	store  *store
	create creator
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

func (h *handler) createOrder(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Customer string `json:"customer"`
		Amount   int64  `json:"amount"`
		Note     string `json:"note"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fail(w, http.StatusBadRequest, "body: %v", err)
		return
	}
	if in.Customer == "" || in.Amount <= 0 {
		fail(w, http.StatusBadRequest, "customer and a positive amount are required")
		return
	}
	o := Order{Customer: in.Customer, Amount: in.Amount, Note: in.Note}
	if dry := r.URL.Query().Get("dry_run"); dry == "true" || dry == "1" {
		send(w, http.StatusOK, reply{OK: true, Effect: "would_create", Data: o})
		return
	}
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" {
		fail(w, http.StatusBadRequest, "an Idempotency-Key header is required")
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), dbTimeout)
	defer cancel()
	out, err := h.create(ctx, h.store, o, key, fingerprint(o))
	var mm errMismatch
	switch {
	case errors.As(err, &mm):
		fail(w, http.StatusUnprocessableEntity, "%v", err)
	case err != nil:
		fail(w, http.StatusServiceUnavailable, "database: %v", err)
	case out.created:
		send(w, http.StatusOK, reply{OK: true, Effect: "created", Data: out.order})
	default:
		w.Header().Set("Idempotent-Replayed", "true")
		send(w, http.StatusOK, reply{OK: true, Effect: "noop", Data: out.order})
	}
}

func (h *handler) listOrders(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), dbTimeout)
	defer cancel()
	list, err := h.store.search(ctx, r.URL.Query().Get("search"))
	if err != nil {
		fail(w, http.StatusServiceUnavailable, "database: %v", err)
		return
	}
	send(w, http.StatusOK, reply{OK: true, Effect: "noop", Data: list})
}

func fingerprint(o Order) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", o.Customer, o.Amount, o.Note)))
	return hex.EncodeToString(sum[:])
}
