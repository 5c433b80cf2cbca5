package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// newChargeHandler is "your" handler: POST /charge charges the payments
// service once per Idempotency-Key and says what it did.
func newChargeHandler(paymentsURL string) http.Handler {
	var mu sync.Mutex
	done := map[string][]byte{}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			http.Error(w, `{"ok":false,"error":"Idempotency-Key required"}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock() // one request at a time keeps the example short
		if reply, ok := done[key]; ok {
			w.Write([]byte(strings.Replace(string(reply), `"created"`, `"noop"`, 1)))
			return
		}
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequest(http.MethodPost, paymentsURL+"/v1/charges", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key) // passed downstream
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, `{"ok":false}`, http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			http.Error(w, `{"ok":false}`, http.StatusBadGateway)
			return
		}
		var charge struct{ ID string }
		_ = json.NewDecoder(resp.Body).Decode(&charge)
		reply := []byte(fmt.Sprintf(`{"ok":true,"effect":"created","data":{"id":%q}}`, charge.ID))
		done[key] = reply
		w.Write(reply)
	})
}

// Example tests a handler in the test's own process: an httptest server
// in front of it, the payments fake behind it, and the HTTP adapter (with
// its fault proxy) between the harness and the handler.
func Example() {
	spec := harness.Spec{
		Name: "mine", Kind: "http",
		Fakes: []harness.FakeStarter{func(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
			return payments.New(payments.Options{Ledger: l})
		}},
		Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
			srv := httptest.NewServer(newChargeHandler(env.Fakes["payments"].URL()))
			t, err := httptarget.New(httptarget.Config{
				Name: "mine", BaseURL: srv.URL,
				Operations: []httptarget.Operation{{
					Name: "charge", Mutating: true, Method: "POST", Path: "/charge",
					Body:   `{"amount":{{input.amount}},"description":"{{marker}}"}`,
					Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 999}},
				}},
			})
			if err != nil {
				srv.Close()
				return nil, err
			}
			t.OnClose(func() error { srv.Close(); return nil })
			return t, nil
		},
	}
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1),
		harness.WithChecks(harness.CheckRetrySequential, harness.CheckRetryAfterFault, harness.CheckKeyRequired, harness.CheckExactlyOnce))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Targets[0].Checks {
		if c.Status != harness.StatusSkip {
			fmt.Println(c.ID, c.Status)
		}
	}
	// Output:
	// retry.sequential pass
	// retry.after-fault pass
	// key.required pass
	// exactly-once pass
}
