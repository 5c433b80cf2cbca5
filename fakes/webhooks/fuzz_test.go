package webhooks_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/fakes/webhooks"
)

// FuzzDelivery: whatever a sender delivers (path, key, body, and the
// rules a harness arms), the webhook sink answers without a panic, and
// its list of deliveries and its ledger stay readable.
func FuzzDelivery(f *testing.F) {
	f.Add("orders", "key-1", `{"event":"order.created","memo":"idem-0123456789abcdef"}`, `{"marker":"idem-0123456789abcdef","action":"fail_before","times":1}`)
	f.Add("a/b/%2e%2e", "", "\x00\xff", `{"action":"reset","times":2}`)
	f.Add("", "k\x7f", strings.Repeat("idem-", 1000), `[]`)
	s := webhooks.Start(f, webhooks.Options{ControlAddr: "127.0.0.1:0"})
	f.Fuzz(func(t *testing.T, path, key, body, rule string) {
		if strings.ContainsAny(key, "\r\n\x00") {
			key = ""
		}
		hdr := []string{}
		if key != "" {
			hdr = append(hdr, "Idempotency-Key", key)
		}
		if strings.Contains(rule, "hang") {
			rule = "" // a hang lasts until the sender gives up: seconds per input
		}
		_ = post(t, s.ControlURL()+"/_idemcheck/rules", rule)
		r := post(t, s.URL()+"/hooks/"+url.PathEscape(path), body, hdr...)
		if r.err == nil && r.status == 0 {
			t.Fatal("no status")
		}
		req, err := http.NewRequest(http.MethodDelete, s.ControlURL()+"/_idemcheck/rules", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		_ = get(t, s.ControlURL()+"/_idemcheck/deliveries")
		_ = get(t, s.ControlURL()+"/_idemcheck/ledger")
	})
}
