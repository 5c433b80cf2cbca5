package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// shopHandler is a small charge endpoint written the way a careful
// service is: a key is required, a reused key with another payload is
// refused, a key in flight answers 409, a completed key replays its
// reply, the key is passed on to the payments API, and ?dry_run=true
// charges nothing. With careless set it has none of that: every request
// charges again.
type shopHandler struct {
	payments string
	client   *http.Client
	careless bool
	// now, when not nil, stamps every key, which is forgotten ttl after;
	// with ownKeys the key is not passed on to the payments API, which
	// would otherwise remember it.
	now     func() time.Time
	ttl     time.Duration
	ownKeys bool

	mu   sync.Mutex
	keys map[string]*keyed
}

type keyed struct {
	body  string
	done  bool
	reply string
	// failed: the last try failed downstream; the same request may try
	// again, another payload is still refused.
	failed bool
	at     time.Time
}

func newShop(careless bool) httptarget.NewHandler {
	return func(env *harness.Env) http.Handler {
		return &shopHandler{payments: env.Fakes["payments"].URL(), client: env.HTTPClient(), careless: careless, keys: map[string]*keyed{}}
	}
}

// newShopExpiring is the careful handler with keys that expire ttl after
// they are stored, by env.Now (the harness's clock) or by time.Now; with
// ownKeys it passes no key on to the payments API.
func newShopExpiring(ttl time.Duration, envClock, ownKeys bool) httptarget.NewHandler {
	return func(env *harness.Env) http.Handler {
		h := newShop(false)(env).(*shopHandler)
		h.now, h.ttl, h.ownKeys = time.Now, ttl, ownKeys
		if envClock {
			h.now = env.Now
		}
		return h
	}
}

func (s *shopHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Memo   string `json:"memo"`
		Amount int    `json:"amount"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		reply(w, http.StatusBadRequest, `{"error":"invalid JSON"}`)
		return
	}
	if r.URL.Query().Get("dry_run") == "true" {
		reply(w, http.StatusOK, `{"effect":"would_create"}`)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if s.careless {
		id, status := s.charge(r, "", req.Memo, req.Amount)
		if status != 0 {
			reply(w, status, `{"error":"payments failed"}`)
			return
		}
		reply(w, http.StatusCreated, fmt.Sprintf(`{"effect":"created","data":{"id":%q}}`, id))
		return
	}
	if key == "" {
		reply(w, http.StatusBadRequest, `{"error":"an Idempotency-Key header is required"}`)
		return
	}
	if len(key) > 200 { // too long to store: the client's error
		reply(w, http.StatusBadRequest, `{"error":"an Idempotency-Key is at most 200 characters"}`)
		return
	}
	s.mu.Lock()
	k, seen := s.keys[key]
	if seen && s.now != nil && s.now().Sub(k.at) > s.ttl {
		delete(s.keys, key) // expired
		seen = false
	}
	switch {
	case seen && k.body != string(body):
		s.mu.Unlock()
		reply(w, http.StatusUnprocessableEntity, `{"error":"this key was used with another request"}`)
		return
	case seen && k.failed:
		k.failed = false // this try is now in flight
	case seen && !k.done:
		s.mu.Unlock()
		reply(w, http.StatusConflict, `{"error":"a request with this key is in progress"}`)
		return
	case seen:
		s.mu.Unlock()
		reply(w, http.StatusCreated, strings.Replace(k.reply, `"created"`, `"noop"`, 1)) // the first reply, replayed
		return
	default:
		k = &keyed{body: string(body)}
		if s.now != nil {
			k.at = s.now()
		}
		s.keys[key] = k
	}
	s.mu.Unlock()

	downstream := key
	if s.ownKeys {
		downstream = ""
	}
	id, status := s.charge(r, downstream, req.Memo, req.Amount)
	s.mu.Lock()
	defer s.mu.Unlock()
	if status != 0 {
		k.failed = true // the client may retry the same request
		reply(w, status, `{"error":"payments failed, retry"}`)
		return
	}
	k.done, k.reply = true, fmt.Sprintf(`{"effect":"created","data":{"id":%q}}`, id)
	reply(w, http.StatusCreated, k.reply)
}

// charge posts a charge to the payments fake, with the key passed on; a
// status other than 0 is what to answer when it fails.
func (s *shopHandler) charge(r *http.Request, key, memo string, amount int) (string, int) {
	form := url.Values{"amount": {fmt.Sprint(amount)}, "currency": {"usd"}, "description": {memo}}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.payments+"/v1/charges", bytes.NewBufferString(form.Encode()))
	if err != nil {
		return "", http.StatusInternalServerError
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", http.StatusServiceUnavailable
	}
	defer resp.Body.Close()
	var ch struct {
		ID string `json:"id"`
	}
	if resp.StatusCode >= 300 || json.NewDecoder(resp.Body).Decode(&ch) != nil {
		return "", http.StatusServiceUnavailable
	}
	return ch.ID, 0
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

var chargeOps = []httptarget.Operation{{
	Name: "charge", Mutating: true, Method: "POST", Path: "/charges",
	Body:   `{"memo":"{{marker}}","amount":{{input.amount}}}`,
	Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 999}},
}}

var dryRunConfig = httptarget.Config{Name: "shop", Operations: chargeOps, DryRun: &httptarget.DryRun{Query: "dry_run"}}

// The careful handler scores 3 and passes, generated trials included.
func TestCheckHandlerPassesACarefulHandler(t *testing.T) {
	t.Parallel()
	httptarget.CheckHandlerConfig(t, dryRunConfig, newShop(false), harness.WithSeed(1), harness.WithTrials(20))
}

// The short form: no dry run configured, so the handler cannot show
// level 3 (the dryrun check finds that it offers none), and the test
// fails unless that check is skipped and the required score lowered.
func TestCheckHandlerShortForm(t *testing.T) {
	t.Parallel()
	httptarget.CheckHandler(t, newShop(false), chargeOps, harness.WithSeed(1), harness.WithTrials(-1),
		harness.WithSkip(harness.CheckDryRun), harness.WithMinScore(2))

	rec := &checkRecorder{}
	httptarget.CheckHandler(rec, newShop(false), chargeOps, harness.WithSeed(1), harness.WithTrials(-1))
	assert.True(t, rec.Failed(), "without a dry run the default required score is not met")
	assert.Contains(t, strings.Join(rec.errors, "\n"), "handler scored 2, below the required 3")
}

// The careless handler charges every retry again: Check fails the test.
func TestCheckHandlerFailsACarelessHandler(t *testing.T) {
	t.Parallel()
	rec := &checkRecorder{}
	httptarget.CheckHandlerConfig(rec, dryRunConfig, newShop(true), harness.WithSeed(1), harness.WithTrials(-1))
	assert.True(t, rec.Failed(), "a handler that charges every retry fails")
	assert.Contains(t, strings.Join(rec.logs, "\n"), "idemcheck: shop scored 0 of 3")
}

// checkRecorder is a harness.TB that records instead of failing; it runs
// no subtests, so Check reports findings on it directly.
type checkRecorder struct {
	logs, errors []string
}

func (r *checkRecorder) Helper()                    {}
func (r *checkRecorder) Name() string               { return "recorder" }
func (r *checkRecorder) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }
func (r *checkRecorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *checkRecorder) Fatalf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *checkRecorder) Failed() bool { return len(r.errors) > 0 }

// An in-process handler cannot be crashed, and the run says so in those
// words: crash.recovery is skipped with that reason.
func TestInProcessHandlerSaysWhyItCannotCrash(t *testing.T) {
	t.Parallel()
	spec := httptarget.HandlerSpec(dryRunConfig, newShop(false), payments.Starter(payments.Options{}))
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1), harness.WithChecks(harness.CheckCrashRecovery))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	for _, c := range tr.Checks {
		if c.ID == harness.CheckCrashRecovery {
			assert.Equal(t, harness.StatusSkip, c.Status)
			assert.Contains(t, c.Note, "an in-process handler cannot be crashed")
			return
		}
	}
	t.Fatalf("no crash.recovery verdict in %+v", tr.Checks)
}

// The crash faults an in-process handler cannot take are named in the
// score's reason as a caveat after it: what was not examined could lower
// the score, it is not what holds it back.
func TestScoreReasonSaysWhatWasNotExaminedAfterTheCause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg   httptarget.Config
		score int
		cause string
	}{
		{dryRunConfig, 3, "every condition of level 3 holds: "},
		{httptarget.Config{Name: "shop", Operations: chargeOps}, 2, "; blocked by dryrun (minor, at charge)"},
	} {
		spec := httptarget.HandlerSpec(tc.cfg, newShop(false), payments.Starter(payments.Options{}))
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1), harness.WithLateRetry(0, -1))
		require.NoError(t, err)
		tr := res.Targets[0]
		require.Empty(t, tr.Error)
		require.Equal(t, tc.score, tr.Score.Level, tr.Score.Reason)
		cause, caveat, ok := strings.Cut(tr.Score.Reason, " — ")
		require.True(t, ok, tr.Score.Reason)
		assert.Contains(t, cause, tc.cause)
		assert.NotContains(t, cause, "crash")
		assert.Equal(t, checks.LimitsLead+"crash.recovery (under crash-before-effect, crash-after-effect, crash-after-reply) not examined: "+
			"an in-process handler cannot be crashed: serve it as a process of its own (a start command) to test crash recovery", caveat)
	}
}

// A TB that runs no subtests still gets the trials it asks for, reported
// on it as the checks are.
func TestCheckHandlerRunsTrialsWithoutSubtests(t *testing.T) {
	t.Parallel()
	rec := &checkRecorder{}
	httptarget.CheckHandlerConfig(rec, dryRunConfig, newShop(false), harness.WithSeed(1), harness.WithTrials(20), harness.WithLateRetry(0, -1))
	assert.False(t, rec.Failed(), "%s", strings.Join(rec.errors, "\n"))
	assert.Contains(t, strings.Join(rec.logs, "\n"), "idemcheck: 20 generated trials (seed 1)")
}
