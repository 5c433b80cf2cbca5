package shop_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// charge is one charge the payments stand-in recorded.
type charge struct {
	ID          string
	Amount      int64
	Currency    string
	Customer    string
	Description string
	Key         string // the Idempotency-Key the shop passed on
}

// payments is a tiny stand-in for the payments fake: it counts
// POST /v1/charges, can fail the next call with 503 (recording nothing),
// and can hold the next call until released, so that tests synchronise on
// events, not on time.
type payments struct {
	srv *httptest.Server

	mu      sync.Mutex
	charges []charge
	fails   int
	hold    *hold
}

type hold struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (h *hold) let() { h.once.Do(func() { close(h.release) }) }

func newPayments(t testing.TB) *payments {
	t.Helper()
	p := &payments{}
	p.srv = httptest.NewServer(http.HandlerFunc(p.handle))
	t.Cleanup(p.srv.Close)
	return p
}

// URL is the base URL to give the shop.
func (p *payments) URL() string { return p.srv.URL }

// Charges returns a copy of what was charged, in order.
func (p *payments) Charges() []charge {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]charge(nil), p.charges...)
}

// Count is len(Charges()).
func (p *payments) Count() int { return len(p.Charges()) }

// FailNext makes the next call answer 503 without charging.
func (p *payments) FailNext() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fails++
}

// HoldNext makes the next call wait, after it arrived and before it
// charges, until release is called. entered is closed when the call
// arrives. The hold is released at cleanup at the latest, which runs before
// the shop's own cleanup (cleanups run last-in first-out), so a failing
// test never leaves the shop's shutdown waiting on it.
func (p *payments) HoldNext(t *testing.T) (entered <-chan struct{}, release func()) {
	h := &hold{entered: make(chan struct{}), release: make(chan struct{})}
	p.mu.Lock()
	p.hold = h
	p.mu.Unlock()
	t.Cleanup(h.let)
	return h.entered, h.let
}

func (p *payments) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/charges" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Amount      int64  `json:"amount"`
		Currency    string `json:"currency"`
		Customer    string `json:"customer"`
		Description string `json:"description"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	h := p.hold
	p.hold = nil
	fail := p.fails > 0
	if fail {
		p.fails--
	}
	p.mu.Unlock()

	if h != nil {
		close(h.entered)
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, `{"error":{"message":"payments are unavailable"}}`)
		return
	}
	p.mu.Lock()
	c := charge{
		ID:          fmt.Sprintf("ch_%06d", len(p.charges)+1),
		Amount:      req.Amount,
		Currency:    req.Currency,
		Customer:    req.Customer,
		Description: req.Description,
		Key:         r.Header.Get("Idempotency-Key"),
	}
	p.charges = append(p.charges, c)
	p.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": c.ID, "object": "charge", "amount": c.Amount, "currency": c.Currency,
		"customer": c.Customer, "description": c.Description, "status": "succeeded",
	})
}
