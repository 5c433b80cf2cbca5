package http_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// countingHandler counts the requests it served per idempotency key and
// where they came from; a key of "flood" gets a header of 1 MiB.
type countingHandler struct {
	mu      sync.Mutex
	byKey   map[string]int
	remotes []string
}

func (h *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	key := r.Header.Get("Idempotency-Key")
	h.mu.Lock()
	h.byKey[key]++
	h.remotes = append(h.remotes, r.RemoteAddr)
	h.mu.Unlock()
	if key == "flood" {
		w.Header().Set("X-Flood", strings.Repeat("f", 1<<20))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"effect":"created","data":{"id":"ord_1"}}`)
}

func (h *countingHandler) count(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byKey[key]
}

// TestAHandlerServedInMemoryKeepsEveryFaultsMeaning: a handler that
// HandlerSpec serves is reached without a socket (its requests come from
// memory), and each fault still does what it says: a reset loses the reply
// of a request the handler served once, a lost reply too, a client that
// gives up leaves the handler to finish, a burst's copies all arrive, and
// a reply header over the cap is recorded as a reply not read whole.
func TestAHandlerServedInMemoryKeepsEveryFaultsMeaning(t *testing.T) {
	h := &countingHandler{byKey: map[string]int{}}
	spec := httptarget.HandlerSpec(oneOp("", httptarget.Operation{Path: "/orders", Body: `{"memo":"{{marker}}"}`}),
		func(*harness.Env) http.Handler { return h })
	tg, err := spec.Start(context.Background(), &harness.Env{Fakes: nil})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tg.Close()) })

	plain := call(t, tg, harness.Call{ID: "run-1-1", Key: "plain"})
	assert.Equal(t, harness.OK, plain.Outcome, plain.Error)

	for i, tc := range []struct {
		fault   string
		outcome harness.Outcome
	}{
		{faults.NameReset, harness.Info},
		{faults.NameLostResponse, harness.Info},
		{faults.NameClientTimeout, harness.Info},
	} {
		key := "k-" + tc.fault
		rep := call(t, tg, harness.Call{ID: "run-2-" + string(rune('a'+i)), Key: key, Fault: mustFault(t, tc.fault, nil)})
		assert.Equal(t, tc.outcome, rep.Outcome, "%s: %+v", tc.fault, rep)
		assert.True(t, rep.Forwarded, tc.fault)
		assert.True(t, rep.Withheld, "%s: the handler replied, the client did not get it", tc.fault)
		assert.Equal(t, 1, h.count(key), "%s: the handler served the request once", tc.fault)
	}

	replies := tg.(harness.Burster).Burst(context.Background(), harness.Call{ID: "run-3-1", Operation: "create", Key: "burst"}, 8)
	for i, r := range replies {
		assert.Equal(t, harness.OK, r.Outcome, "copy %d: %+v", i, r)
	}
	assert.Equal(t, 8, h.count("burst"), "every copy of the burst arrived")

	flood := call(t, tg, harness.Call{ID: "run-4-1", Key: "flood"})
	assert.Equal(t, harness.Info, flood.Outcome)
	assert.Contains(t, flood.Error, "header section is too large")
	assert.Equal(t, 1, h.count("flood"))

	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ra := range h.remotes {
		assert.True(t, strings.HasPrefix(ra, "memory:"), "a request came over a socket, from %s", ra)
	}
}
