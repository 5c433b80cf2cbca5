package http_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// FuzzReplyLocator: whatever body and header a target replies with, the
// adapter reads the effect and identity (the reply locators, here at
// nested JSON paths and a header) without a panic, through a real server
// and the fault proxy.
func FuzzReplyLocator(f *testing.F) {
	f.Add(`{"effect":"created","data":{"id":"ord_1","items":[{"id":7}]}}`, "created")
	f.Add(`{"data":{"items":[1,2,{"id":null}]},"effect":1e400}`, "")
	f.Add(`[[[[{"data":"x"}]]]]`, "\x00")
	f.Add(`{"data":{"items":{"0":{"id":{"deep":[true]}}}}}`, "noop")
	var mu sync.Mutex
	var body, hdr string
	srv := newServer(f, func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		b, h := body, hdr
		mu.Unlock()
		if h != "" && !strings.ContainsAny(h, "\r\n\x00") {
			w.Header().Set("X-Effect", h)
		}
		_, _ = w.Write([]byte(b))
	}, nil)
	cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
	cfg.Effect = httptarget.Locator{Header: "X-Effect"}
	cfg.Identity = httptarget.Locator{JSON: "data.items.2.id"}
	tg := mustNew(f, cfg)
	f.Fuzz(func(t *testing.T, b, h string) {
		mu.Lock()
		body, hdr = b, h
		mu.Unlock()
		rep := call(t, tg, harness.Call{Key: "k", Marker: "m"})
		if rep.Outcome == "" {
			t.Fatalf("no outcome for body %q", b)
		}
	})
}
