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
	"time"

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

// ExampleHandlerSpec runs a handler through every check with
// harness.Verify, as a program would, and reads the result: the score and
// what holds it back, the findings, and what the run could not examine
// that might lower the score. The handler replays a key's first reply
// whatever the payload, answers a key too long for the payments API with
// a server error, and has no dry run.
func ExampleHandlerSpec() {
	spec := httptarget.HandlerSpec(httptarget.Config{
		Name: "mine",
		Operations: []httptarget.Operation{{
			Name: "charge", Mutating: true, Method: "POST", Path: "/charge",
			Body:   `{"amount":{{input.amount}},"description":"{{marker}}"}`,
			Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 999}},
		}},
	}, func(env *harness.Env) http.Handler {
		return newChargeHandler(env.Fakes["payments"].URL())
	}, payments.Starter(payments.Options{}))

	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1), harness.WithTrials(20),
		// The handler keeps its keys for ever and reads no clock: a late
		// retry 100 ms after its intent tells as much as one 2.5 s after.
		harness.WithLateRetry(0, 100*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := res.Targets[0]
	if tr.Error != "" {
		fmt.Println("not tested:", tr.Error)
		return
	}
	fmt.Println("score", tr.Score.Level, "of 3")
	if next := tr.Score.Next; next != nil {
		fmt.Println("level", next.Level, "blocked by", next.Check)
	}
	for _, f := range tr.Findings {
		fmt.Println(f.Severity, f.Check, "at", f.Operation)
	}
	for _, u := range tr.NotExamined {
		if u.Limits() {
			fmt.Println("not examined:", u.Subject())
		}
	}
	// Output:
	// score 1 of 3
	// level 2 blocked by key.malformed
	// minor key.mismatch at charge
	// major key.malformed at charge
	// minor dryrun at charge
	// not examined: crash.recovery under crash-before-effect
	// not examined: crash.recovery under crash-after-effect
	// not examined: crash.recovery under crash-after-reply
}
