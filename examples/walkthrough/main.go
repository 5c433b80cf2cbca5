// Command pay is a payment service small enough to read in one go: POST
// /charges takes {"amount":1200,"note":"…"} with an Idempotency-Key header
// and charges the amount through a Stripe-like payments API. It is safe to
// retry because it hands the caller's key on to the payments API, which
// charges once per key and replays its first reply to any retry.
//
// Usage:
//
//	PAYMENTS_URL=http://127.0.0.1:4242 pay --listen 127.0.0.1:8080
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	payments := os.Getenv("PAYMENTS_URL")
	if payments == "" {
		log.Fatal("PAYMENTS_URL is not set")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, map[string]any{"ok": true})
	})
	mux.HandleFunc("POST /charges", func(w http.ResponseWriter, r *http.Request) {
		charge(w, r, payments)
	})
	log.Printf("listening on %s", *listen)
	log.Fatal(http.ListenAndServe(*listen, mux))
}

func charge(w http.ResponseWriter, r *http.Request, payments string) {
	var in struct {
		Amount int64  `json:"amount"`
		Note   string `json:"note"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Amount <= 0 {
		reply(w, http.StatusBadRequest, map[string]any{"error": `expected {"amount": a positive integer, "note": "…"}`})
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		reply(w, http.StatusBadRequest, map[string]any{"error": "an Idempotency-Key header is required"})
		return
	}
	if len(key) > 200 { // a key too long to store is the client's error
		reply(w, http.StatusBadRequest, map[string]any{"error": "an Idempotency-Key is at most 200 characters"})
		return
	}
	if r.URL.Query().Has("dry_run") {
		// A preview: nothing is charged and the key stays unused.
		reply(w, http.StatusOK, map[string]any{"effect": "would_create", "data": map[string]any{"amount": in.Amount}})
		return
	}

	// The note (which carries idemcheck's marker) becomes the charge's
	// description; the caller's key, scoped to this operation, becomes the
	// payments API's Idempotency-Key.
	form := url.Values{"amount": {strconv.FormatInt(in.Amount, 10)}, "currency": {"eur"}, "description": {in.Note}}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, payments+"/v1/charges", strings.NewReader(form.Encode()))
	if err != nil {
		reply(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
		return
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Idempotency-Key", "charge:"+key)
	// Go's client silently resends a request carrying an Idempotency-Key
	// when a reused connection breaks; the resend would be a replay, and
	// this service would say "noop" for a charge made by this very call.
	// Without GetBody it cannot resend: the failure reaches the caller,
	// whose retry with the same key is then rightly a replay.
	req.GetBody = nil
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		reply(w, http.StatusBadGateway, map[string]any{"error": "payments: " + err.Error()})
		return
	}
	defer resp.Body.Close()
	var ch struct {
		ID     string `json:"id"`
		Amount int64  `json:"amount"`
		Error  *struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ch); err != nil {
		reply(w, http.StatusBadGateway, map[string]any{"error": "payments: " + err.Error()})
		return
	}

	switch {
	case resp.StatusCode == http.StatusOK:
		effect := "created"
		if resp.Header.Get("Idempotent-Replayed") == "true" {
			effect = "noop" // a retry: the charge was made before
		}
		reply(w, http.StatusOK, map[string]any{"effect": effect, "data": map[string]any{"id": ch.ID, "amount": ch.Amount}})
	case resp.StatusCode == http.StatusConflict:
		reply(w, http.StatusConflict, map[string]any{"error": "a request with this key is in progress; retry later"})
	case ch.Error != nil && ch.Error.Type == "idempotency_error":
		reply(w, http.StatusUnprocessableEntity, map[string]any{"error": "this key was used for another charge"})
	default: // a 503 and the like: retrying with the same key is safe
		reply(w, http.StatusServiceUnavailable, map[string]any{"error": "payments answered " + resp.Status})
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
