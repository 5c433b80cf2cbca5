package payapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// maxBody bounds a request's body.
const maxBody = 1 << 16

// Payment is what a request asks for.
type Payment struct {
	Amount int64  `json:"amount"`
	Note   string `json:"note"`
}

// Reply is what the service answers.
type Reply struct {
	Status int
	ID     string
	Effect string
	Err    string
}

// Write writes the reply as JSON.
func (rp Reply) Write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rp.Status)
	if rp.Status < 300 {
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "effect": rp.Effect, "data": map[string]string{"id": rp.ID}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": rp.Err})
}

// Failure is the 500 for a failed dependency call; what names the
// dependency ("database", "redis").
func Failure(what string, err error) Reply {
	return Reply{Status: http.StatusInternalServerError, Err: what + ": " + err.Error()}
}

// Created is the reply to a payment made now.
func Created(id string) Reply {
	return Reply{Status: http.StatusCreated, ID: id, Effect: "created"}
}

// Mismatch is the reply to a key already used with another payload.
var Mismatch = Reply{Status: http.StatusUnprocessableEntity, Err: "the key was used with another payload"}

// InProgress is the reply to a key whose first request has not ended.
var InProgress = Reply{Status: http.StatusConflict, Err: "in progress"}

// Handler handles one payment with its key; it runs only for a valid
// request that is not a dry run.
type Handler func(ctx context.Context, key string, p Payment) Reply

// Serve listens on listen (loopback), prints "listening on http://ADDR"
// to stdout once it accepts connections, and serves payments with pay
// until ctx ends.
func Serve(ctx context.Context, listen string, stdout io.Writer, pay Handler) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /v1/payments", func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		var in Payment
		if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&in); err != nil || key == "" || len(key) > 200 {
			Reply{Status: http.StatusBadRequest, Err: "a JSON body {amount, note} and an Idempotency-Key are required"}.Write(w)
			return
		}
		if dry := r.URL.Query().Get("dry_run"); dry == "true" || dry == "1" {
			Reply{Status: http.StatusOK, Effect: "would_create"}.Write(w)
			return
		}
		pay(r.Context(), key, in).Write(w)
	})
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stdout, "listening on http://%s\n", l.Addr())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
