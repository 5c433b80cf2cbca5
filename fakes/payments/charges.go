package payments

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// Charge is a charge the server made, as its API returns it.
type Charge struct {
	// ID is "ch_" and a six-digit sequence number, per server: ch_000001,
	// ch_000002, … so that runs are deterministic.
	ID string `json:"id"`
	// Object is always "charge".
	Object string `json:"object"`
	// Amount is in the currency's smallest unit, e.g. cents.
	Amount int64 `json:"amount"`
	// Currency is a lower-case ISO code; "usd" unless the request said.
	Currency string `json:"currency"`
	// Customer is the customer parameter as sent, "" if none.
	Customer string `json:"customer"`
	// Description is the description parameter as sent, "" if none.
	Description string `json:"description"`
	// Metadata is the metadata parameter as sent; never nil.
	Metadata map[string]string `json:"metadata"`
	// Created is when the charge was made, in Unix seconds.
	Created int64 `json:"created"`
	// Status is always "succeeded".
	Status string `json:"status"`
}

// clone returns a copy of c that shares no map with it.
func (c Charge) clone() Charge {
	c.Metadata = maps.Clone(c.Metadata)
	return c
}

// chargeList is the reply to GET /v1/charges.
type chargeList struct {
	Object  string   `json:"object"`
	Data    []Charge `json:"data"`
	HasMore bool     `json:"has_more"`
	URL     string   `json:"url"`
}

// handleCreateCharge serves POST /v1/charges: fault rules first, then
// idempotency, then the charge itself.
func (s *Server) handleCreateCharge(w http.ResponseWriter, r *http.Request) {
	// Read into one buffer of the announced length; past the cap the
	// server's MaxBytesHandler fails the read.
	body, err := oncehttp.ReadAll(r.Body, r.ContentLength, MaxBodyBytes+1)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			(&apiError{Status: http.StatusRequestEntityTooLarge, Type: errInvalidRequest,
				Message: fmt.Sprintf("Request body is larger than %d bytes.", mbe.Limit)}).reply().Write(w)
			return
		}
		invalidParam("", "Could not read the request body: %v.", err).reply().Write(w)
		return
	}
	markers := httpfake.Markers(r, body)
	httpfake.Faults{
		Rules: &s.rules, Server: s.http, Ledger: s.ledger, Unavailable: injectedUnavailable(),
		Closing: (&apiError{Status: http.StatusServiceUnavailable, Type: errAPI, Message: "Server is shutting down."}).reply(),
	}.Serve(w, r, markers, func() httpfake.Reply { return s.createCharge(r, body, markers) })
}

// createCharge handles the idempotency key, if any, around charge.
func (s *Server) createCharge(r *http.Request, body []byte, markers []string) httpfake.Reply {
	values, aerr := parseParams(r.Header.Get("Content-Type"), body)
	if aerr != nil {
		return aerr.reply()
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" || s.ignoreKeys {
		rp, _ := s.charge(values, markers, key)
		return rp
	}
	if len(key) > httpfake.MaxKeyLen {
		return invalidParam("", "Idempotency-Key is %d characters long; the maximum is %d.", len(key), httpfake.MaxKeyLen).reply()
	}
	if rp, ok := s.claim(key, fingerprint(values)); !ok {
		return rp
	}
	stored := false
	defer func() {
		if !stored { // failed before charging, or panicked: let a retry in
			s.keys.Release(key)
		}
	}()
	rp, charged := s.charge(values, markers, key)
	if charged {
		s.keys.Complete(key, rp)
		stored = true
	}
	return rp
}

// charge validates values, makes the charge and records it in the ledger,
// before any reply is written. It reports whether it charged.
func (s *Server) charge(values url.Values, markers []string, key string) (httpfake.Reply, bool) {
	p, aerr := chargeParamsFrom(values)
	if aerr != nil {
		return aerr.reply(), false
	}
	s.mu.Lock()
	s.lastID++
	c := Charge{
		ID:          fmt.Sprintf("ch_%06d", s.lastID),
		Object:      "charge",
		Amount:      p.amount,
		Currency:    p.currency,
		Customer:    p.customer,
		Description: p.description,
		Metadata:    p.metadata,
		Created:     time.Now().Unix(),
		Status:      "succeeded",
	}
	s.charges = append(s.charges, c)
	s.mu.Unlock()

	// Not under s.mu: observers may block, and other requests must still
	// be served meanwhile.
	e := s.ledger.Record(fakes.Effect{
		Fake:    fakeName,
		Kind:    "charge",
		ID:      c.ID,
		Markers: markers,
		Key:     key,
		Detail: map[string]string{
			"amount":   strconv.FormatInt(c.Amount, 10),
			"currency": c.Currency,
			"customer": c.Customer,
		},
	})
	rp := httpfake.JSON(http.StatusOK, c)
	rp.Effect = e.Seq
	return rp, true
}

// handleListCharges serves GET /v1/charges, newest first, with Stripe's
// customer filter and limit (default 10, at most 100).
func (s *Server) handleListCharges(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 10
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 100 {
			invalidParam("limit", "Invalid limit %s: must be an integer from 1 to 100.", quoteShort(l)).reply().Write(w)
			return
		}
		limit = n
	}
	customer := q.Get("customer")

	list := chargeList{Object: "list", Data: []Charge{}, URL: "/v1/charges"}
	s.mu.Lock()
	for i := len(s.charges) - 1; i >= 0; i-- {
		c := s.charges[i]
		if customer != "" && c.Customer != customer {
			continue
		}
		if len(list.Data) == limit {
			list.HasMore = true
			break
		}
		list.Data = append(list.Data, c.clone())
	}
	s.mu.Unlock()
	httpfake.JSON(http.StatusOK, list).Write(w)
}

// handleGetCharge serves GET /v1/charges/{id}.
func (s *Server) handleGetCharge(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	var (
		found Charge
		ok    bool
	)
	for _, c := range s.charges {
		if c.ID == id {
			found, ok = c.clone(), true
			break
		}
	}
	s.mu.Unlock()
	if !ok {
		(&apiError{
			Status:  http.StatusNotFound,
			Type:    errInvalidRequest,
			Code:    "resource_missing",
			Param:   "id",
			Message: "No such charge: " + quoteShort(id),
		}).reply().Write(w)
		return
	}
	httpfake.JSON(http.StatusOK, found).Write(w)
}
