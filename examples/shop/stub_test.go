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

// call is one POST /v1/charges the stand-in answered, charged or not.
type call struct {
	Key      string // the Idempotency-Key header, "" when absent
	Status   int
	Replayed bool // answered from the key store, Idempotent-Replayed: true
}

// payments is a tiny stand-in for the payments fake: it counts
// POST /v1/charges and de-duplicates them by Idempotency-Key as Stripe and
// the fake do (the same key and parameters replay the first charge with
// Idempotent-Replayed: true; other parameters get 400). It can fail the
// next call with 503 before charging or after charging, and hold the next
// call before or after it charges until released, so that tests
// synchronise on events, not on time.
type payments struct {
	srv *httptest.Server

	mu        sync.Mutex
	charges   []charge
	calls     []call
	keys      map[string]keyed
	fails     int
	failAfter int
	hold      *hold
}

// keyed is what the stand-in stored against a key.
type keyed struct {
	params string
	charge charge
}

// hold is one held call.
type hold struct {
	// after holds the reply after the charge was made and recorded, the
	// crash-after-effect point; otherwise the call is held before.
	after bool
	// entered is closed when the call reaches the hold.
	entered chan struct{}
	// left is closed when the hold is over: released, or the caller went
	// away (and, held after the charge, the lost reply is recorded).
	left    chan struct{}
	release chan struct{}
	once    sync.Once
}

func (h *hold) let() { h.once.Do(func() { close(h.release) }) }

func newPayments(t testing.TB) *payments {
	t.Helper()
	p := &payments{keys: map[string]keyed{}}
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

// Calls returns every charge request answered, in order, replays and
// failures included.
func (p *payments) Calls() []call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]call(nil), p.calls...)
}

// FailNext makes the next call answer 503 without charging.
func (p *payments) FailNext() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fails++
}

// FailNextAfterCharge makes the next call charge (and store its key), then
// answer 503: the ambiguous downstream failure.
func (p *payments) FailNextAfterCharge() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failAfter++
}

// HoldNext makes the next call wait, after it arrived and before it
// charges, until release is called. entered is closed when the call
// arrives. The hold is released at cleanup at the latest, which runs before
// the shop's own cleanup (cleanups run last-in first-out), so a failing
// test never leaves the shop's shutdown waiting on it. If the caller goes
// away first, the call ends without charging.
func (p *payments) HoldNext(t *testing.T) (entered <-chan struct{}, release func()) {
	h := p.holdNext(t, false)
	return h.entered, h.let
}

// HoldNextAfterCharge is HoldNext, but the call charges first: entered is
// closed once the charge is recorded (and its key stored), and the reply
// waits. If the caller goes away meanwhile, the reply is lost.
func (p *payments) HoldNextAfterCharge(t *testing.T) (entered <-chan struct{}, release func()) {
	h := p.holdNext(t, true)
	return h.entered, h.let
}

// holdNext arms a hold on the next call and returns it, for tests that
// also wait for it to be over.
func (p *payments) holdNext(t *testing.T, after bool) *hold {
	h := &hold{after: after, entered: make(chan struct{}), left: make(chan struct{}), release: make(chan struct{})}
	p.mu.Lock()
	p.hold = h
	p.mu.Unlock()
	t.Cleanup(h.let)
	return h
}

// wait blocks on a hold; it returns false if the caller went away.
func (h *hold) wait(r *http.Request) bool {
	close(h.entered)
	select {
	case <-h.release:
		return true
	case <-r.Context().Done():
		return false
	}
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
	key := r.Header.Get("Idempotency-Key")
	params := fmt.Sprintf("%d\x00%s\x00%s\x00%s", req.Amount, req.Currency, req.Customer, req.Description)
	p.mu.Lock()
	h := p.hold
	p.hold = nil
	fail := p.fails > 0
	if fail {
		p.fails--
	}
	p.mu.Unlock()

	if h != nil && !h.after {
		ok := h.wait(r)
		close(h.left)
		if !ok {
			return // nothing charged
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if fail {
		p.answer(w, call{Key: key, Status: http.StatusServiceUnavailable}, `{"error":{"message":"payments are unavailable"}}`)
		return
	}

	p.mu.Lock()
	if k, ok := p.keys[key]; ok && key != "" {
		p.mu.Unlock()
		if k.params != params {
			p.answer(w, call{Key: key, Status: http.StatusBadRequest}, `{"error":{"type":"idempotency_error","message":"key reused with other parameters"}}`)
			return
		}
		w.Header().Set("Idempotent-Replayed", "true")
		p.answer(w, call{Key: key, Status: http.StatusOK, Replayed: true}, chargeJSON(k.charge))
		return
	}
	c := charge{
		ID:          fmt.Sprintf("ch_%06d", len(p.charges)+1),
		Amount:      req.Amount,
		Currency:    req.Currency,
		Customer:    req.Customer,
		Description: req.Description,
		Key:         key,
	}
	p.charges = append(p.charges, c)
	if key != "" {
		p.keys[key] = keyed{params: params, charge: c}
	}
	failAfter := p.failAfter > 0
	if failAfter {
		p.failAfter--
	}
	p.mu.Unlock()

	if h != nil && h.after {
		ok := h.wait(r)
		if !ok {
			p.record(call{Key: key, Status: -1}) // charged, reply lost
		}
		close(h.left)
		if !ok {
			return
		}
	}
	if failAfter {
		p.answer(w, call{Key: key, Status: http.StatusServiceUnavailable}, `{"error":{"message":"payments are unavailable"}}`)
		return
	}
	p.answer(w, call{Key: key, Status: http.StatusOK}, chargeJSON(c))
}

func (p *payments) record(c call) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, c)
}

// answer records c and writes its status and body.
func (p *payments) answer(w http.ResponseWriter, c call, body string) {
	p.record(c)
	w.WriteHeader(c.Status)
	fmt.Fprintln(w, body)
}

func chargeJSON(c charge) string {
	b, _ := json.Marshal(map[string]any{
		"id": c.ID, "object": "charge", "amount": c.Amount, "currency": c.Currency,
		"customer": c.Customer, "description": c.Description, "status": "succeeded",
	})
	return string(b)
}
