package http_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// laterHandler answers every charge at once and makes it later: each
// request first makes the charges queued before it, then queues its own
// and answers 201. Its charges always come after its answer, during the
// next request.
type laterHandler struct {
	shop  *shopHandler
	mu    sync.Mutex
	queue []string
}

func newLater(env *harness.Env) http.Handler {
	return &laterHandler{shop: newShop(false)(env).(*shopHandler)}
}

func (h *laterHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Memo string `json:"memo"`
	}
	if json.Unmarshal(body, &req) != nil {
		reply(w, http.StatusBadRequest, `{"error":"invalid JSON"}`)
		return
	}
	h.mu.Lock()
	queued := h.queue
	h.queue = []string{req.Memo}
	h.mu.Unlock()
	for _, memo := range queued {
		h.shop.charge(r.WithContext(context.Background()), "", memo, 100)
	}
	reply(w, http.StatusCreated, `{"effect":"created"}`)
}

// A handler that answers, then acts: a downstream fault armed for the
// attempt never meets the charge, which comes once the attempt is over
// (here, during the late retry's intents that follow), and the check it
// was for is not examined, for that reason; the careful handler, which
// charges before it answers, meets the fault and is examined.
func TestFaultMissedByAnEffectAfterTheAnswer(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		handler httptarget.NewHandler
		late    bool
	}{
		"later":   {newLater, true},
		"careful": {newShop(false), false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := httptarget.HandlerSpec(httptarget.Config{Name: name, Operations: chargeOps}, tc.handler, payments.Starter(payments.Options{}))
			f, err := faults.Builtin().New(faults.NameDownstreamFailBefore, nil)
			require.NoError(t, err)
			res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1),
				harness.WithChecks(harness.CheckRetryAfterFault, harness.CheckRetryLate), harness.WithLateRetry(2, -1), harness.WithFaults(f))
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			var unfired []record.Unexamined
			for _, u := range tr.NotExamined {
				if u.Cause == record.CauseUnfired {
					unfired = append(unfired, u)
				}
			}
			status := map[string]record.Status{}
			for _, c := range tr.Checks {
				status[c.ID] = c.Status
			}
			if !tc.late {
				assert.Empty(t, unfired)
				assert.Equal(t, record.StatusPass, status[harness.CheckRetryAfterFault])
				return
			}
			require.Len(t, unfired, 1)
			assert.Equal(t, faults.NameDownstreamFailBefore, unfired[0].Fault)
			assert.Contains(t, unfired[0].Reason, "the target answered before it acted")
			assert.Equal(t, record.StatusSkip, status[harness.CheckRetryAfterFault])
		})
	}
}
