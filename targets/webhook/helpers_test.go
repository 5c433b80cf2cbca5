package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "whsec_test"

// clock is a fixed time for signatures and {{created}}.
var clock = time.Unix(1_700_000_000, 0)

// delivery is one request as the receiver got it.
type delivery struct {
	Path   string
	Header http.Header
	Body   string
}

// receiver stands for a webhook handler: it records deliveries and answers
// with reply (200 {"received":true} by default).
type receiver struct {
	srv   *httptest.Server
	reply http.HandlerFunc

	mu   sync.Mutex
	seen []delivery
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.seen = append(rc.seen, delivery{Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Body: string(b)})
		reply := rc.reply
		rc.mu.Unlock()
		if reply != nil {
			reply(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"received":true}`)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.seen...)
}

// config is a target with one mutating event and a ping.
func config(base string) webhook.Config {
	return webhook.Config{
		Name:      "handler",
		BaseURL:   base,
		Signature: webhook.Signature{Secret: secret},
		Now:       func() time.Time { return clock },
		Events: []webhook.Event{
			{
				Name: "invoice.due", Path: "/webhooks",
				Body:   `{"id":"{{key}}","type":"invoice.due","created":{{created}},"data":{"amount":{{input.amount}},"description":"invoice {{marker}}"}}`,
				Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 999}},
			},
			{Name: "ping", Safe: true, Path: "/webhooks", Body: `{"id":"{{key}}","type":"ping","trace":"{{marker}}"}`},
		},
	}
}

func mustNew(t *testing.T, cfg webhook.Config) *webhook.Target {
	t.Helper()
	tg, err := webhook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// stripeSig computes Stripe's signature independently of the adapter.
func stripeSig(secret string, ts int64, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "." + body))
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

func call(id, op, key, marker string) harness.Call {
	return harness.Call{ID: id, Operation: op, Key: key, Marker: marker, Inputs: map[string]string{"amount": "250"}}
}
