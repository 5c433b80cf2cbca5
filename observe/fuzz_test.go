package observe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	f.Add([]byte(`{"data":[{"id":"","note":"`+m1+`"}]}`), "data", "id")
	f.Add([]byte("\x00\xff not json"), "", "")
	f.Fuzz(func(t *testing.T, body []byte, items, id string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		defer srv.Close()
		o, err := observe.OpenHTTP(srv.URL, observe.HTTP{URL: "/v1/orders", Items: items, ID: id,
			Settle: observe.Settle{Interval: time.Millisecond, Within: 20 * time.Millisecond}})
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

// FuzzLinkHeader follows whatever Link headers a read-back's pages carry:
// the observer reads pages until there is no next one or the page limit,
// and never panics or loops.
func FuzzLinkHeader(f *testing.F) {
	f.Add(`</list?p=1>; rel="next"`, `<list?p=2> ; REL = next , <https://elsewhere.test/y>; rel="first"`)
	f.Add(`<>; rel=next`, `<`)
	f.Add(`<http://[::1>; rel="next"`, `;;;,,,<x>;rel`)
	f.Add(`<javascript:alert(1)>; rel="next prev"`, `<//evil.test/x>; rel=next`)
	f.Fuzz(func(t *testing.T, first, later string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("p") == "" {
				w.Header().Set("Link", first)
			} else {
				w.Header().Set("Link", later)
			}
			// Every page's row has an id, the first page's (no query)
			// too: a row without one fails the read before any link is
			// followed.
			_, _ = w.Write([]byte(`[{"id":"page ` + r.URL.RawQuery + `","note":"` + m1 + `"}]`))
		}))
		defer srv.Close()
		// A read that fails (most fuzzed headers point somewhere it may
		// not follow) is tried again until Within; one that succeeds,
		// every page followed, returns at once.
		o, err := observe.OpenHTTP(srv.URL, observe.HTTP{URL: "/list", Pages: observe.Pages{Link: true, Max: 5},
			Settle: observe.Settle{Interval: time.Millisecond, Within: 20 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		ledger := fakes.NewLedger()
		_ = o.Observe(context.Background(), ledger, m1)
		if n := len(ledger.Effects()); n > 5 {
			t.Fatalf("%d effects from at most 5 pages of one object", n)
		}
	})
}

// FuzzFileItems reads arbitrary bytes as a store file, under arbitrary
// item and id paths and either format: rows or an error, never a panic,
// never an effect without an identity.
func FuzzFileItems(f *testing.F) {
	f.Add([]byte(`[{"type":"entity","name":"`+m1+`"}]`), "", "name", false)
	f.Add([]byte(`{"records":[{"id":1,"note":"`+m1+`"},{"id":null}]}`), "records", "id", false)
	f.Add([]byte(`{"key":"k1","memo":"`+m1+`"}`+"\n\n"+`not json`+"\n"), "", "key", true)
	f.Add([]byte("\xff\xfe"+m1), "x[0]", "", true)
	f.Add([]byte(`[{"name":"","note":"`+m1+`"}]`), "", "name", false)
	f.Fuzz(func(t *testing.T, content []byte, items, id string, jsonl bool) {
		path := filepath.Join(t.TempDir(), "store")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		format := "json"
		if jsonl {
			format = "jsonl"
		}
		o, err := observe.Spec{Name: "store", Settle: observe.Settle{Interval: time.Millisecond, Within: 5 * time.Millisecond},
			Source: observe.File{Path: path, Format: format, Items: items, ID: id}}.Open(context.Background(), observe.Where{})
		if err != nil {
			return
		}
		defer o.Close()
		ledger := fakes.NewLedger()
		_ = o.Observe(context.Background(), ledger, m1)
		for _, e := range ledger.Effects() {
			if e.ID == "" {
				t.Fatalf("an effect without an identity from %q", content)
			}
		}
	})
}
