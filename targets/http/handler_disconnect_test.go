package http_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
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
	t.Parallel()
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

// slowRecordHandler charges with the request's key passed on (the
// payments fake makes it once), then, slowly, writes a record of its own
// for the memo, and keeps the key only after that: a retry that comes
// while the first attempt is still at work writes a second record, and
// the first attempt's lands well after the retry.
type slowRecordHandler struct {
	shop  *shopHandler
	store *recordStore
	slow  time.Duration
	mu    sync.Mutex
	done  map[string]bool
}

func (h *slowRecordHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	memo, ok := memoOf(w, r)
	if !ok {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	h.mu.Lock()
	seen := h.done[key]
	h.mu.Unlock()
	if seen {
		reply(w, http.StatusCreated, `{"effect":"noop","data":{"id":"rec"}}`)
		return
	}
	if _, status := h.shop.charge(r.WithContext(context.Background()), key, memo, 100); status != 0 {
		reply(w, status, `{"error":"payments failed"}`)
		return
	}
	time.Sleep(h.slow) // the slow part of the work, after the call
	h.store.add(memo)
	h.mu.Lock()
	h.done[key] = true
	h.mu.Unlock()
	reply(w, http.StatusCreated, `{"effect":"created","data":{"id":"rec"}}`)
}

// recordStore is the handler's own data: the memos of the records it
// wrote, in order.
type recordStore struct {
	mu    sync.Mutex
	memos []string
}

func (s *recordStore) add(memo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memos = append(s.memos, memo)
}

// recordObserver counts the store's records as the intent's effects.
type recordObserver struct{ store *recordStore }

func (recordObserver) Name() string { return "records" }
func (recordObserver) Close() error { return nil }
func (o recordObserver) Observe(_ context.Context, ledger *fakes.Ledger, marker string) error {
	o.store.mu.Lock()
	var n int
	for _, m := range o.store.memos {
		if m == marker {
			n++
		}
	}
	o.store.mu.Unlock()
	have := 0
	for _, e := range ledger.ByMarker(marker) {
		if e.Observed {
			have++
		}
	}
	for i := have; i < n; i++ {
		ledger.Record(fakes.Effect{Fake: "records", Kind: "record", ID: fmt.Sprintf("rec_%s_%d", marker, i+1), Markers: []string{marker}, Observed: true})
	}
	return nil
}

// The work a target went on with after its client left is counted
// however long it takes past its downstream call, as long as the
// target's calls usually take: a handler that writes its own record
// 400 ms after the call is found writing it twice.
func TestSlowWorkGoneOnWithAfterTheClientLeftIsCounted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	store := &recordStore{}
	spec := httptarget.HandlerSpec(httptarget.Config{Name: "slow-record", Operations: chargeOps}, func(env *harness.Env) http.Handler {
		return &slowRecordHandler{shop: newShop(false)(env).(*shopHandler), store: store, slow: 400 * time.Millisecond, done: map[string]bool{}}
	}, payments.Starter(payments.Options{}))
	spec.Observers = []harness.ObserverStarter{func(context.Context, *harness.Env, harness.Target) (harness.EffectObserver, error) {
		return recordObserver{store: store}, nil
	}}
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(3), harness.WithTrials(-1),
		harness.WithChecks(harness.CheckRetrySequential, harness.CheckRetryAfterFault), harness.WithFaults(&faults.ClientDisconnect{}))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	i := slices.IndexFunc(tr.Findings, func(f record.Finding) bool {
		return f.Check == harness.CheckRetryAfterFault && f.Fault == faults.NameClientDisconnect
	})
	require.GreaterOrEqual(t, i, 0, "the record written after the retry is counted: %v", tr.Findings)
	assert.Contains(t, tr.Findings[i].Message, "record rec_")
}
