package webhooks_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/examples/webhooks"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	secret = "whsec_test"
	wait   = 10 * time.Second
)

// handler is a running handler and the payments fake it charges.
type handler struct {
	url string
	pay *payments.Server
}

// startHandler serves profile in-process until the test ends; opts may
// set the state directory and sizes.
func startHandler(t *testing.T, profile string, opts webhooks.Options) *handler {
	t.Helper()
	pay := payments.Start(t)
	opts.Profile, opts.Listen, opts.PaymentsURL, opts.Secret = profile, "127.0.0.1:0", pay.URL(), secret
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	return serve(t, opts, pay)
}

func serve(t *testing.T, opts webhooks.Options, pay *payments.Server) *handler {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- webhooks.Serve(ctx, opts, func(a string) { addrs <- a }) }()
	h := &handler{pay: pay}
	select {
	case a := <-addrs:
		h.url = "http://" + a
	case err := <-done:
		cancel()
		t.Fatalf("Serve returned before ready: %v", err)
	case <-time.After(wait):
		cancel()
		t.Fatal("Serve not ready")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(2 * wait):
			t.Error("Serve did not return after cancel")
		}
	})
	return h
}

// event is an invoice.due payload.
func event(id, marker string, created int64) string {
	return fmt.Sprintf(`{"id":%q,"type":"invoice.due","created":%d,"data":{"customer":"cus_1","amount":1234,"description":"invoice %s"}}`, id, created, marker)
}

// sign signs body now, as the adapter does.
func sign(body string) string {
	return webhook.Signature{Secret: secret}.Sign(secret, []byte(body), time.Now())
}

type result struct {
	status int
	body   string
}

// deliver posts body with signature sig ("" for none).
func (h *handler) deliver(t *testing.T, body, sig string) result {
	t.Helper()
	r, err := h.try(body, sig)
	require.NoError(t, err)
	return r
}

func (h *handler) try(body, sig string) (result, error) {
	req, err := http.NewRequest(http.MethodPost, h.url+webhooks.Path, bytes.NewReader([]byte(body)))
	if err != nil {
		return result{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(webhooks.SignatureHeader, sig)
	}
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: wait}).Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return result{resp.StatusCode, string(b)}, nil
}

// send delivers a correctly signed body.
func (h *handler) send(t *testing.T, body string) result {
	t.Helper()
	return h.deliver(t, body, sign(body))
}

func (h *handler) charges(marker string) int { return len(h.pay.Ledger().ByMarker(marker)) }
