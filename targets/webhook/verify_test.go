package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// inProcessHandler is a webhook handler in the test's own process: per
// invoice.due event it charges payments. With dedup it verifies the
// signature (401 otherwise), claims event ids atomically (409 while in
// flight), passes the id on as the Idempotency-Key and acknowledges only
// once charged; without, it charges every delivery, signed or not.
func inProcessHandler(paymentsURL string, dedup bool) http.Handler {
	var mu sync.Mutex
	state := map[string]string{} // id → "busy" | "done"
	client := &http.Client{Timeout: 10 * time.Second}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			ID   string
			Type string
			Data struct {
				Amount      int64
				Description string
			}
		}
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "bad event", http.StatusBadRequest)
			return
		}
		if dedup && !validSignature(r.Header.Get(webhook.DefaultSignatureHeader), raw) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if err := json.Unmarshal(raw, &ev); err != nil || ev.ID == "" {
			http.Error(w, "bad event", http.StatusBadRequest)
			return
		}
		if ev.Type != "invoice.due" {
			return // 200
		}
		if dedup {
			mu.Lock()
			switch state[ev.ID] {
			case "done":
				mu.Unlock()
				return
			case "busy":
				mu.Unlock()
				http.Error(w, "in flight", http.StatusConflict)
				return
			}
			state[ev.ID] = "busy"
			mu.Unlock()
		}
		body, _ := json.Marshal(map[string]any{"amount": ev.Data.Amount, "description": ev.Data.Description})
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, paymentsURL+"/v1/charges", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if dedup {
			req.Header.Set("Idempotency-Key", ev.ID)
		}
		resp, err := client.Do(req)
		ok := err == nil && resp.StatusCode == http.StatusOK
		if err == nil {
			resp.Body.Close()
		}
		if dedup {
			mu.Lock()
			if ok {
				state[ev.ID] = "done"
			} else {
				delete(state, ev.ID)
			}
			mu.Unlock()
		}
		if !ok {
			http.Error(w, fmt.Sprint("charge failed: ", err), http.StatusBadGateway)
		}
	})
}

// validSignature checks a Stripe-style "t=TS,v1=HEX" header against the
// test secret.
func validSignature(header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	return ts != "" && hmac.Equal([]byte(sig), []byte(want))
}

// inProcessSpec starts the handler against the run's payments fake and the
// adapter in front of it: how a Go test verifies its own handler.
func inProcessSpec(name string, dedup bool) harness.Spec {
	return harness.Spec{
		Name: name, Kind: webhook.Kind,
		Fakes: []harness.FakeStarter{func(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
			return payments.New(payments.Options{Ledger: l})
		}},
		Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
			srv := httptest.NewServer(inProcessHandler(env.Fakes["payments"].URL(), dedup))
			cfg := config(srv.URL)
			cfg.Name, cfg.Now = name, nil
			tg, err := webhook.New(cfg)
			if err != nil {
				srv.Close()
				return nil, err
			}
			return closing{tg, srv}, nil
		},
	}
}

// closing closes the in-process server with the target. It keeps the
// Burster ability of the adapter.
type closing struct {
	*webhook.Target
	srv *httptest.Server
}

func (c closing) Close() error {
	err := c.Target.Close()
	c.srv.Close()
	return err
}

func failing(tr harness.TargetResult) (fail, skipped []string) {
	for _, c := range tr.Checks {
		switch c.Status {
		case harness.StatusFail:
			fail = append(fail, c.ID)
		case harness.StatusSkip:
			skipped = append(skipped, c.ID)
		}
	}
	sort.Strings(fail)
	sort.Strings(skipped)
	return fail, skipped
}

func TestVerifyInProcessHandlers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{inProcessSpec("dedup", true), inProcessSpec("naive", false)}, harness.WithSeed(3))
	require.NoError(t, err)
	require.Len(t, res.Targets, 2)

	good := res.Targets[0]
	require.Empty(t, good.Error)
	for _, f := range good.Findings {
		t.Logf("dedup: %s %s %s: %s", f.Severity, f.Check, f.Fault, f.Message)
	}
	fail, skipped := failing(good)
	assert.Empty(t, fail)
	assert.Equal(t, 3, good.Score.Level, good.Score.Reason)
	assert.Equal(t, []string{"consumer.redelivery", "crash.recovery", "dependency.recovery", "dryrun", "effect.field", "ietf.draft", "key.malformed", "key.mismatch", "key.required", "key.scope", "mcp.annotations", "mcp.idempotent-hint", "mcp.readonly-hint", "replay.consistent"}, skipped,
		"the key conventions webhooks lack (an event id is not a caller's key), crashes (the harness did not start this handler), tool annotations, the ietf-draft profile it did not opt into, a broker's redeliveries, a dependency it does not declare, and replies a sender reads only for success")
	for _, c := range good.Checks {
		if c.ID == "effect.field" {
			assert.Equal(t, "not applicable to webhook targets", c.Note)
		}
	}

	naive := res.Targets[1]
	require.Empty(t, naive.Error)
	fail, _ = failing(naive)
	assert.Equal(t, []string{"concurrent.duplicates", "downstream.propagation", "retry.after-fault", "retry.late", "retry.sequential", "webhook.signature"}, fail,
		"a handler that processes every delivery duplicates every redelivery, forged ones included")
	assert.Equal(t, 0, naive.Score.Level)
}
