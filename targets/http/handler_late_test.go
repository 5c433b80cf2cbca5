package http_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

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

// memoOf reads the request's memo, or answers 400 and says so.
func memoOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Memo string `json:"memo"`
	}
	if json.Unmarshal(body, &req) != nil {
		reply(w, http.StatusBadRequest, `{"error":"invalid JSON"}`)
		return "", false
	}
	return req.Memo, true
}

func newLater(env *harness.Env) http.Handler {
	return &laterHandler{shop: newShop(false)(env).(*shopHandler)}
}

func (h *laterHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	memo, ok := memoOf(w, r)
	if !ok {
		return
	}
	h.mu.Lock()
	queued := h.queue
	h.queue = []string{memo}
	h.mu.Unlock()
	for _, m := range queued {
		h.shop.charge(r.WithContext(context.Background()), "", m, 100)
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

// backgroundHandler answers 202 at once and charges delay later in the
// background, in the order the requests came (a queue of jobs), trying
// again (up to three times) when the charge fails; with lose, it never
// charges every other intent (by memo) it sees. In order, because it
// answers 202 to a reused key with another payload too, and the payments
// API takes the first charge it is sent with a key: were the later
// payload's charge sent first, the earlier intent, acknowledged, would
// truly be lost.
type backgroundHandler struct {
	shop  *shopHandler
	delay time.Duration
	lose  bool
	mu    sync.Mutex
	lost  map[string]bool
	// last is closed when the last job queued is done (nil: none yet).
	last chan struct{}
}

func (h *backgroundHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	memo, ok := memoOf(w, r)
	if !ok {
		return
	}
	h.mu.Lock()
	lost, seen := h.lost[memo]
	if !seen {
		lost = h.lose && len(h.lost)%2 == 0
		h.lost[memo] = lost
	}
	var before, done chan struct{}
	if !lost {
		before, done = h.last, make(chan struct{})
		h.last = done
	}
	h.mu.Unlock()
	key := r.Header.Get("Idempotency-Key")
	bg := r.WithContext(context.Background())
	if !lost {
		time.AfterFunc(h.delay, func() {
			defer close(done)
			if before != nil {
				<-before
			}
			for range 3 {
				if _, status := h.shop.charge(bg, key, memo, 100); status == 0 {
					return
				}
			}
		})
	}
	reply(w, http.StatusAccepted, `{"effect":"created"}`)
}

// A handler that answers 202 and charges 20 ms later in the background:
// the charges of its last requests come after its last answer, and are
// counted, not called lost, because the run waits for the fakes to fall
// quiet before it reads them for the last time, and so, having seen an
// effect come that way, does every generated trial. One that never
// charges every other intent is still caught losing them.
func TestBackgroundEffectsAreCounted(t *testing.T) {
	t.Parallel()
	for name, lose := range map[string]bool{"background": false, "losing": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := httptarget.HandlerSpec(httptarget.Config{Name: name, Operations: chargeOps}, func(env *harness.Env) http.Handler {
				return &backgroundHandler{shop: newShop(false)(env).(*shopHandler), delay: 20 * time.Millisecond, lose: lose, lost: map[string]bool{}}
			}, payments.Starter(payments.Options{}))
			res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1),
				harness.WithChecks(harness.CheckRetrySequential, harness.CheckRetryLate, harness.CheckExactlyOnce), harness.WithLateRetry(4, -1),
				harness.WithTrials(30))
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			lost := 0
			for _, f := range tr.Findings {
				if f.Check == harness.CheckExactlyOnce {
					lost++
					assert.True(t, lose, "false finding: %s", f.Message)
				}
			}
			if lose {
				assert.Positive(t, lost, "the lost charges are caught")
				return
			}
			require.NotNil(t, tr.Scenario)
			assert.Positive(t, tr.Scenario.Trials)
			assert.Nil(t, tr.Scenario.Counterexample, "a trial failed: %s %v", tr.Scenario.Steps, tr.Scenario.Findings)
		})
	}
}
