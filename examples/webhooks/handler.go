package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxBody bounds a delivery.
const maxBody = 64 << 10

type handler struct {
	p      profile
	secret []byte
	now    func() time.Time
	dedup  dedup
	pay    *paymentsClient
}

func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+Path, h.receive)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { reply(w, http.StatusOK, map[string]any{"ok": true}) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("no such endpoint: %s %s; events go to POST %s", r.Method, r.URL.Path, Path)})
	})
	return mux
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the sender may be gone
}

func failure(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]any{"error": msg})
}

// receive handles one delivery: verify, parse, de-duplicate, process, and
// acknowledge only once processed.
func (h *handler) receive(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			failure(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the event is larger than %d bytes", maxBody))
			return
		}
		failure(w, http.StatusBadRequest, "cannot read the body: "+err.Error())
		return
	}
	// Before anything else: an unverified delivery must not touch state,
	// or a forger could mark a real event as seen.
	if h.p.verify {
		if err := verifySignature(h.secret, r.Header.Get(SignatureHeader), body, h.now()); err != nil {
			failure(w, http.StatusUnauthorized, err.Error())
			return
		}
	}
	ev, err := parseEvent(body)
	if err != nil {
		failure(w, http.StatusBadRequest, err.Error())
		return
	}
	if ev.Type != typeInvoiceDue {
		// A ping, or a type this handler does not subscribe to: acknowledged,
		// so that the provider stops sending it.
		reply(w, http.StatusOK, map[string]any{"received": true})
		return
	}
	cl, v, err := h.dedup.begin(r.Context(), ev)
	switch {
	case err != nil:
		failure(w, http.StatusServiceUnavailable, "event store: "+err.Error())
		return
	case v == duplicate:
		reply(w, http.StatusOK, map[string]any{"received": true, "duplicate": true})
		return
	case v == inFlight:
		failure(w, http.StatusConflict, "event "+ev.ID+" is being processed; redeliver later")
		return
	}
	key := ""
	if h.p.passKey {
		key = ev.ID
	}
	if _, err := h.pay.charge(r.Context(), ev, key); err != nil {
		cl.release()
		failure(w, http.StatusBadGateway, err.Error())
		return
	}
	if err := cl.done(); err != nil {
		// The charge happened but cannot be remembered: let the provider
		// redeliver; the key makes payments replay the charge.
		cl.release()
		failure(w, http.StatusServiceUnavailable, "event store: "+err.Error())
		return
	}
	reply(w, http.StatusOK, map[string]any{"received": true})
}
