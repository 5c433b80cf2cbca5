package http_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// recordLateHandler goes on with a charge whose client left (it charges
// on a context of its own), but records the key only once the charge is
// made: a retry that comes while the first charge is still held charges
// again, and the first charge lands after it.
type recordLateHandler struct {
	shop *shopHandler
	mu   sync.Mutex
	done map[string]string
}

func (h *recordLateHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	memo, ok := memoOf(w, r)
	if !ok {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	h.mu.Lock()
	id, seen := h.done[key]
	h.mu.Unlock()
	if seen {
		reply(w, http.StatusCreated, fmt.Sprintf(`{"effect":"noop","data":{"id":%q}}`, id))
		return
	}
	id, status := h.shop.charge(r.WithContext(context.Background()), "", memo, 100)
	if status != 0 {
		reply(w, status, `{"error":"payments failed"}`)
		return
	}
	h.mu.Lock()
	h.done[key] = id
	h.mu.Unlock()
	reply(w, http.StatusCreated, fmt.Sprintf(`{"effect":"created","data":{"id":%q}}`, id))
}

// A charge that the handler went on with after its client left lands
// after the retry, which charged too: the run waits for it before it
// counts the intent's effects, even a run of that check alone, and the
// finding says why the retry charged again. The careful handler, which
// claims its key before it charges, is found correct under the same
// fault.
func TestWorkGoneOnWithAfterTheClientLeftIsCounted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	late := httptarget.HandlerSpec(httptarget.Config{Name: "record-late", Operations: chargeOps}, func(env *harness.Env) http.Handler {
		return &recordLateHandler{shop: newShop(false)(env).(*shopHandler), done: map[string]string{}}
	}, payments.Starter(payments.Options{}))
	careful := httptarget.HandlerSpec(httptarget.Config{Name: "careful", Operations: chargeOps}, newShop(false), payments.Starter(payments.Options{}))
	res, err := harness.Verify(ctx, []harness.Spec{late, careful}, harness.WithSeed(3), harness.WithTrials(-1),
		harness.WithChecks(harness.CheckRetryAfterFault), harness.WithFaults(&faults.ClientDisconnect{}))
	require.NoError(t, err)
	require.Len(t, res.Targets, 2)

	bad := res.Targets[0]
	require.Empty(t, bad.Error)
	require.NotEmpty(t, bad.Findings, "the charge made after the client left is counted")
	f := bad.Findings[0]
	assert.Equal(t, harness.CheckRetryAfterFault, f.Check)
	assert.Equal(t, faults.NameClientDisconnect, f.Fault)
	assert.Contains(t, f.Message, "retrying with the same key caused 2 effects")
	assert.Contains(t, f.Message, "the target went on with the first attempt after its client left, and the retry did not find the key")

	good := res.Targets[1]
	require.Empty(t, good.Error)
	assert.Empty(t, good.Findings)
}
