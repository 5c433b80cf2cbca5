package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// These tests show the flaws of the profiles that behave as correct under
// every probe of profiles_test.go, next to correct under the same steps.

// TestContextBookkeepingIsStuckAfterADisconnect: a client goes away while
// its charge is at payments. correct frees the key (nothing was charged)
// and the retry executes; context-bookkeeping's write that frees the key
// runs on the cancelled request context and fails, so the key answers 409
// until the process restarts.
func TestContextBookkeepingIsStuckAfterADisconnect(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"correct", "context-bookkeeping"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			pay := newPayments(t)
			opts := shop.Options{Profile: profile, StateDir: t.TempDir()}
			s := mustServe(t, opts, pay)
			body := order("cus_1", 100, "idem-00000000000000d1")

			h := pay.holdNext(t, false)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			raw, err := json.Marshal(body)
			require.NoError(t, err)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/orders", bytes.NewReader(raw))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "k")
			errc := make(chan error, 1)
			go func() {
				resp, err := s.client.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				errc <- err
			}()
			mustReceive(t, (<-chan struct{})(h.entered), "the charge request at payments")
			cancel() // the client disconnects mid-request
			assert.Error(t, mustReceive(t, errc, "the disconnected request to end"), "the client got no reply")
			mustReceive(t, (<-chan struct{})(h.left), "payments to see the shop's charge go away")
			require.Equal(t, 0, pay.Count(), "nothing was charged")

			// The retry: poll past the moment the handler is still
			// finishing, which answers 409 for either profile.
			var retry result
			deadline := time.Now().Add(wait)
			if profile == "context-bookkeeping" {
				deadline = time.Now().Add(time.Second) // stuck: it stays 409
			}
			for {
				retry = s.post(t, "/orders", "k", body)
				if retry.Status != http.StatusConflict || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			// Another key is fine either way: the store itself works.
			other := s.post(t, "/orders", "other", order("cus_1", 1, "m"))
			assert.Equal(t, http.StatusOK, other.Status, other)

			if profile == "correct" {
				assert.Equal(t, http.StatusOK, retry.Status, "the key was freed: %s", retry)
				effect, _ := retry.Effect()
				assert.Equal(t, "created", effect, retry)
				assert.Equal(t, 2, pay.Count(), "the retry and the other key charged")
				return
			}
			assert.Equal(t, http.StatusConflict, retry.Status, "the key is stuck in progress: %s", retry)
			assert.Equal(t, "request with this key is in flight", retry.Error)
			assert.Equal(t, 1, pay.Count(), "only the other key charged")

			// A restart (on the same state directory) reclaims the key of
			// the earlier process: the retry executes once.
			s.stop()
			again := mustServe(t, opts, pay).post(t, "/orders", "k", body)
			assert.Equal(t, http.StatusOK, again.Status, "after a restart: %s", again)
			assert.Equal(t, 2, pay.Count())
		})
	}
}

// TestUnscopedKeysReplayAcrossEndpoints: the key of an order sent to
// /subscriptions. correct refuses it (another payload, 422);
// unscoped-keys replays the order as if it were the subscription and runs
// nothing.
func TestUnscopedKeysReplayAcrossEndpoints(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"correct", "unscoped-keys"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			pay := newPayments(t)
			s := mustStartShop(t, profile, pay)
			ord := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
			require.Equal(t, http.StatusOK, ord.Status, ord)
			require.True(t, strings.HasPrefix(ord.ID(), "ord_"), ord)

			sub := s.post(t, "/subscriptions", "k", map[string]any{"customer": "cus_1", "plan": "pro"})
			assert.Equal(t, 1, pay.Count(), "the subscription was never charged")
			if profile == "correct" {
				assert.Equal(t, http.StatusUnprocessableEntity, sub.Status, sub)
				assert.Equal(t, "idempotency key reused with a different payload", sub.Error)
			} else {
				assert.Equal(t, http.StatusOK, sub.Status, sub)
				assert.Equal(t, ord.Data, sub.Data, "the order's reply, replayed for the subscription")
				effect, _ := sub.Effect()
				assert.Equal(t, "noop", effect, sub)
			}

			// A fresh key on /subscriptions executes with either profile.
			fresh := s.post(t, "/subscriptions", "s", map[string]any{"customer": "cus_1", "plan": "pro"})
			assert.Equal(t, http.StatusOK, fresh.Status, fresh)
			assert.True(t, strings.HasPrefix(fresh.ID(), "sub_"), fresh)
			assert.Equal(t, 2, pay.Count())
		})
	}
}

// TestUUIDKeysRefusesKeysThatAreNotUUIDs: uuid-keys answers 400 to a key
// that is not UUID-shaped, before it charges or stores anything; a UUID key
// is served as by correct.
func TestUUIDKeysRefusesKeysThatAreNotUUIDs(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "uuid-keys", pay)
	for _, key := range []string{
		"k",
		"idem-0000000000000001",
		"123e4567-e89b-12d3-a456-42661417400",   // one digit short
		"123e4567-e89b-12d3-a456-4266141740000", // one digit long
		"123e4567e89b12d3a456426614174000",      // no dashes
		"123e4567-e89b-12d3-a456-42661417400g",  // not hex
	} {
		r := s.post(t, "/orders", key, order("cus_1", 100, "m"))
		assert.Equal(t, http.StatusBadRequest, r.Status, "key %q: %s", key, r)
		assert.Equal(t, "Idempotency-Key must be a UUID (8-4-4-4-12 hex digits)", r.Error, "key %q", key)
	}
	assert.Equal(t, 0, pay.Count(), "a refused key charges nothing")

	for i, key := range []string{"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174001"} {
		first := s.post(t, "/orders", key, order("cus_1", 100, "m"))
		again := s.post(t, "/orders", key, order("cus_1", 100, "m"))
		require.Equal(t, http.StatusOK, first.Status, first)
		require.Equal(t, http.StatusOK, again.Status, again)
		assert.Equal(t, first.ID(), again.ID())
		assert.Equal(t, i+1, pay.Count())
		assert.Equal(t, key, pay.Charges()[i].Key, "the client's key goes downstream")
	}

	// correct takes any key.
	cs := mustStartShop(t, "correct", pay)
	r := cs.post(t, "/orders", "k", order("cus_1", 100, "m"))
	assert.Equal(t, http.StatusOK, r.Status, r)
}

// TestErrorAfterChargeAnswersAFailureThatHappened: error-after-charge
// charges a subscription, then answers 502 "charge failed: please
// retry"; the retry with the same key is answered from payments' replay
// (one charge in all). correct answers the charge's success at once.
func TestErrorAfterChargeAnswersAFailureThatHappened(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"correct", "error-after-charge"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			pay := newPayments(t)
			s := mustStartShop(t, profile, pay)
			sub := map[string]any{"customer": "cus_1", "plan": "pro"}
			first := s.post(t, "/subscriptions", "k", sub)
			assert.Equal(t, 1, pay.Count(), "the subscription was charged")
			if profile == "correct" {
				assert.Equal(t, http.StatusOK, first.Status, first)
			} else {
				assert.Equal(t, http.StatusBadGateway, first.Status, first)
				assert.Equal(t, "charge failed: please retry", first.Error)
			}
			again := s.post(t, "/subscriptions", "k", sub)
			assert.Equal(t, http.StatusOK, again.Status, again)
			assert.Equal(t, 1, pay.Count(), "the retry charged nothing more")
			ord := s.post(t, "/orders", "o", order("cus_1", 100, "m"))
			assert.Equal(t, http.StatusOK, ord.Status, "orders are served as by correct: %v", ord)
		})
	}
}

// TestKeyColumnAnswersALongKeyWith500: key-column-500 answers a key longer
// than its 64-character column with 500 and charges nothing; correct
// takes it (up to 255 characters) and refuses a longer one with 400.
func TestKeyColumnAnswersALongKeyWith500(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"correct", "key-column-500"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			pay := newPayments(t)
			s := mustStartShop(t, profile, pay)
			long := s.post(t, "/orders", strings.Repeat("k", 300), order("cus_1", 100, "m"))
			assert.Equal(t, 0, pay.Count(), "nothing charged")
			if profile == "correct" {
				assert.Equal(t, http.StatusBadRequest, long.Status, long)
			} else {
				assert.Equal(t, http.StatusInternalServerError, long.Status, long)
			}
			short := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
			assert.Equal(t, http.StatusOK, short.Status, short)
		})
	}
}
