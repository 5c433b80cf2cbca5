package observe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// FuzzReadBack sends the HTTP observer's read-back to a server that answers
// with arbitrary bytes, under arbitrary item and id paths: whatever the
// target's API replies, the observer records effects or returns an error,
// never panics, and never records an effect without an id.
func FuzzReadBack(f *testing.F) {
	f.Add([]byte(`{"data":[{"id":"ord_1","note":"order `+m1+`"}]}`), "data", "id")
	f.Add([]byte(`{"data":null}`), "data", "id")
	f.Add([]byte(`{"data":{"items":[{"id":7}]}}`), "data.items", "id")
	f.Add([]byte(`[[{"x":{"id":null}}]]`), "0", "x.id")
	f.Add([]byte(`{"data":[1,"two",{"id":{"nested":true}}]}`), "data", "id")
	f.Add([]byte("\x00\xff not json"), "", "")
	f.Fuzz(func(t *testing.T, body []byte, items, id string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		defer srv.Close()
		o, err := observe.OpenHTTP(srv.URL, observe.HTTP{URL: "/v1/orders", Items: items, ID: id,
			Settle: observe.Settle{Interval: time.Millisecond, Within: 5 * time.Millisecond}})
		if err != nil {
			return // a path the observer refuses up front
		}
		defer o.Close()
		ledger := fakes.NewLedger()
		if err := o.Observe(context.Background(), ledger, m1); err != nil {
			return
		}
		for _, e := range ledger.Effects() {
			if e.ID == "" {
				t.Fatalf("an effect without an id from %q", body)
			}
		}
	})
}
