package payments_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/idemcheck/idemcheck/fakes/payments"
)

// FuzzCreateCharge sends arbitrary bodies: the fake must answer every one
// with JSON, charge exactly when it answers 200, and never fail with 5xx.
func FuzzCreateCharge(f *testing.F) {
	f.Add(formType, "amount=100&currency=usd&metadata%5Bk%5D=v")
	f.Add(jsonType, `{"amount":100,"metadata":{"k":"v"}}`)
	f.Add(jsonType, `{"amount":1e3}`)
	f.Add(jsonType, `{"amount":[1]}`)
	f.Add(formType, "amount=-1")
	f.Add("", "amount=5&amount=6")
	f.Add("text/plain", "x")
	s := payments.Start(f)
	c := newClient(f)

	f.Fuzz(func(t *testing.T, contentType, body string) {
		before := s.Ledger().LastSeq()
		r := send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", contentType, body)
		if r.err != nil {
			t.Skipf("request not sent: %v", r.err) // e.g. an invalid header value
		}
		if !json.Valid(r.body) {
			t.Fatalf("status %d with a body that is not JSON: %q", r.status, r.body)
		}
		charged := s.Ledger().LastSeq() - before
		switch r.status {
		case http.StatusOK:
			if charged != 1 {
				t.Fatalf("200 with %d charges", charged)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if charged != 0 {
				t.Fatalf("%d with %d charges", r.status, charged)
			}
		default:
			t.Fatalf("unexpected status %d: %s", r.status, r.body)
		}
	})
}
