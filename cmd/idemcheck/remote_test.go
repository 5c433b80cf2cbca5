package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingAPI is a correct idempotent API that counts every request it
// gets, when, and with which User-Agent: the stand-in for a vendor's
// sandbox, on loopback.
type countingAPI struct {
	mu     sync.Mutex
	at     []time.Time
	agents map[string]int
	orders map[string]order // by key
	all    []order
	// forgetKeys makes it a flawed API: it accepts a key, and acts again
	// on every request that carries it.
	forgetKeys bool
}

type order struct {
	ID   string `json:"id"`
	Body string `json:"note"`
}

func newCountingAPI() *countingAPI {
	return &countingAPI{agents: map[string]int{}, orders: map[string]order{}}
}

func (a *countingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = append(a.at, time.Now())
	a.agents[r.UserAgent()]++
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet {
		var out []order
		for _, o := range a.all {
			if strings.Contains(o.Body, r.URL.Query().Get("search")) {
				out = append(out, o)
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"effect": "noop", "data": out})
		return
	}
	var in struct {
		Note string `json:"note"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	if r.URL.Query().Get("dry_run") == "true" {
		_ = json.NewEncoder(w).Encode(map[string]any{"effect": "would_create"})
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if o, ok := a.orders[key]; ok && !a.forgetKeys {
		if o.Body != in.Note {
			w.WriteHeader(http.StatusUnprocessableEntity)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"effect": "noop", "data": o})
		return
	}
	o := order{ID: fmt.Sprintf("ord_%d", len(a.all)+1), Body: in.Note}
	a.orders[key] = o
	a.all = append(a.all, o)
	_ = json.NewEncoder(w).Encode(map[string]any{"effect": "created", "data": o})
}

func (a *countingAPI) requests() ([]time.Time, map[string]int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	agents := map[string]int{}
	for k, v := range a.agents {
		agents[k] = v
	}
	return append([]time.Time(nil), a.at...), agents
}

func remoteConfig(t *testing.T, url, limits string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: sandbox
    kind: http
    url: %q
    allow_remote: true      # rehearsed on loopback: the bounds apply whatever the host
    %s
    dry_run: {query: dry_run}
    observe:
      - {name: sandbox-api, http: {path: "/v1/orders?search={{marker}}", items: data}}
    operations:
      - {name: create-order, mutating: true, method: POST, path: /v1/orders, body: '{"note":"order {{marker}} {{input.n}}"}', inputs: {n: {int: [1, 9]}}}
`, url, limits)), 0o644))
	return cfg
}

// TestRemoteRunIsBounded: a run against an API marked remote sends no
// more requests than its budget, never faster than its rate allows, each
// with idemcheck's User-Agent, injects no fault that needs a local process
// or a fake, and still judges the API.
func TestRemoteRunIsBounded(t *testing.T) {
	t.Parallel()
	api := newCountingAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	const budget, rate = 900, 40.0
	cfg := remoteConfig(t, srv.URL, fmt.Sprintf("limits: {requests: %d, per_second: %g}", budget, rate))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--format", "json", "--trials", "0", "--seed", "7")
	assert.Contains(t, errs, fmt.Sprintf("sandbox (%s) may be remote: at most %d requests, %g per second", srv.URL, budget, rate), "the bounds are printed at start")
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), errs)
	tr := targetReport(t, rep)
	assert.Equal(t, exitOK, code, "a correct API passes: %v %v", tr["error"], tr["findings"])
	assert.Equal(t, float64(3), tr["score"])
	for _, f := range []string{"crash-before-effect", "crash-after-effect", "crash-after-reply", "downstream-503", "downstream-503-after", "downstream-reset-after"} {
		assert.Contains(t, tr["unsupported"], f, "a remote API takes only what a client can do")
	}

	at, agents := api.requests()
	require.NotEmpty(t, at)
	assert.LessOrEqual(t, len(at), budget, "within the budget")
	for ua := range agents {
		assert.Contains(t, ua, "idemcheck", "every request names idemcheck: %v", agents)
	}
	// A token bucket of capacity c refilled at rate r lets through at most
	// c + r·Δt requests in any span Δt (plus one for rounding). The times
	// are the API's, when each request arrived: a request let through
	// early may arrive late on a busy machine, which narrows a span by up
	// to that delay (transit).
	capacity := max(rate, 20)
	const transit = 0.25
	for i := range at {
		for j := i + 1; j < len(at); j++ {
			span := at[j].Sub(at[i]).Seconds()
			if n := float64(j - i + 1); n > capacity+rate*(span+transit)+1 {
				t.Fatalf("%v requests in %.3fs: faster than %g per second (capacity %g)", n, span, rate, capacity)
			}
		}
	}
}

// TestRemoteBudgetSpent: a budget too small for the run stops it; the
// target is untestable, with the reason, and the API got no more requests
// than the budget.
func TestRemoteBudgetSpent(t *testing.T) {
	api := newCountingAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	cfg := remoteConfig(t, srv.URL, "limits: {requests: 40, per_second: 100}")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--format", "json", "--trials", "0", "--seed", "7")
	assert.Equal(t, exitHarness, code, errs)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), errs)
	tr := targetReport(t, rep)
	assert.Contains(t, tr["error"], "the request budget of 40 requests is spent")
	at, _ := api.requests()
	assert.LessOrEqual(t, len(at), 40)
}
