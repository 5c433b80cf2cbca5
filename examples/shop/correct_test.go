package shop_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The correct profile is the yardstick the flawed ones are measured
// against, so its behaviour is pinned down in detail here.

func TestCorrectSameKeyTwiceChargesOnceAndReplays(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	first := s.post(t, "/orders", "k1", order("cus_1", 1234, "idem-00000000000000a1"))
	require.Equal(t, http.StatusOK, first.Status, first)
	effect, ok := first.Effect()
	assert.True(t, ok && effect == "created", "first reply effect: %s", first)
	assert.Empty(t, first.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, "ord_000001", first.ID())
	assert.Equal(t, "ch_000001", first.Data["charge"])
	assert.Equal(t, "cus_1", first.Data["customer"])
	assert.EqualValues(t, 1234, first.Data["amount"])

	second := s.post(t, "/orders", "k1", order("cus_1", 1234, "idem-00000000000000a1"))
	require.Equal(t, http.StatusOK, second.Status, second)
	effect, _ = second.Effect()
	assert.Equal(t, "noop", effect)
	assert.Equal(t, "true", second.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, first.Data, second.Data, "a replay returns the first data, same id")

	charges := pay.Charges()
	require.Len(t, charges, 1)
	assert.Equal(t, "idem-00000000000000a1", charges[0].Description, "memo goes downstream verbatim")
	assert.Equal(t, "k1", charges[0].Key, "the client's key is passed downstream")
	assert.Equal(t, "usd", charges[0].Currency)
	assert.Equal(t, "cus_1", charges[0].Customer)
	assert.EqualValues(t, 1234, charges[0].Amount)
}

func TestCorrectDistinctKeysChargeTwice(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	a := s.post(t, "/orders", "a", order("cus_1", 500, "same"))
	b := s.post(t, "/orders", "b", order("cus_1", 500, "same"))
	assert.Equal(t, "ord_000001", a.ID())
	assert.Equal(t, "ord_000002", b.ID(), "ids are sequential per process")
	assert.Equal(t, 2, pay.Count(), "two intents are two charges, whatever their payloads")
}

func TestCorrectInFlightDuplicateGets409(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	entered, release := pay.HoldNext(t)
	firstc := s.postAsync("/orders", "k", order("cus_1", 700, "m"))
	mustReceive(t, entered, "the first request to reach payments")

	dup := s.post(t, "/orders", "k", order("cus_1", 700, "m"))
	assert.Equal(t, http.StatusConflict, dup.Status, dup)
	assert.False(t, dup.OK)
	assert.Equal(t, "request with this key is in flight", dup.Error)

	release()
	first := mustReceive(t, firstc, "the first reply")
	require.Equal(t, http.StatusOK, first.Status, first)

	again := s.post(t, "/orders", "k", order("cus_1", 700, "m"))
	assert.Equal(t, first.ID(), again.ID(), "after completion the key replays")
	assert.Equal(t, 1, pay.Count())
}

func TestCorrectKeyReusedWithDifferentPayloadGets422(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	require.Equal(t, http.StatusOK, s.post(t, "/orders", "k", order("cus_1", 100, "m")).Status)
	for _, body := range []map[string]any{
		order("cus_1", 101, "m"), // amount differs
		order("cus_1", 100, "n"), // only the memo differs: every field counts
		{"customer": "cus_1", "amount": 100, "memo": "m", "extra": true},
	} {
		r := s.post(t, "/orders", "k", body)
		assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r)
		assert.Equal(t, "idempotency key reused with a different payload", r.Error)
	}
	// Same fields in another order and spacing are the same payload.
	r := s.post(t, "/orders", "k", map[string]any{"memo": "m", "amount": 100, "customer": "cus_1"})
	assert.Equal(t, http.StatusOK, r.Status, r)
	// The same key on another path is another payload.
	r = s.post(t, "/subscriptions", "k", map[string]any{"customer": "cus_1", "plan": "pro"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r)
	assert.Equal(t, 1, pay.Count())
}

func TestCorrectRequiresKey(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	for _, path := range []string{"/orders", "/subscriptions"} {
		r := s.post(t, path, "", map[string]any{"customer": "cus_1", "amount": 100, "plan": "basic"})
		assert.Equal(t, http.StatusBadRequest, r.Status, r)
		assert.Equal(t, `{"ok":false,"error":"Idempotency-Key header is required"}`, r.Raw)
	}
	r := s.post(t, "/orders", strings.Repeat("k", 256), order("cus_1", 100, ""))
	assert.Equal(t, http.StatusBadRequest, r.Status, "an over-long key is refused: %s", r)
	assert.Equal(t, 0, pay.Count())
}

func TestCorrectDryRunChargesNothingAndKeepsKey(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	dry := s.post(t, "/orders?dry_run=true", "k", order("cus_1", 1500, "idem-00000000000000d1"))
	require.Equal(t, http.StatusOK, dry.Status, dry)
	effect, _ := dry.Effect()
	assert.Equal(t, "would_create", effect)
	assert.Empty(t, dry.ID(), "a dry run creates nothing, so it has no id")
	assert.Equal(t, "cus_1", dry.Data["customer"])
	assert.EqualValues(t, 1500, dry.Data["amount"])
	assert.Equal(t, 0, pay.Count())

	real := s.post(t, "/orders", "k", order("cus_1", 1500, "idem-00000000000000d1"))
	effect, _ = real.Effect()
	assert.Equal(t, "created", effect, "the dry run must not consume the key: %s", real)
	assert.Equal(t, 1, pay.Count())

	sub := s.post(t, "/subscriptions?dry_run=true", "", map[string]any{"customer": "cus_1", "plan": "pro"})
	effect, _ = sub.Effect()
	assert.Equal(t, "would_create", effect, sub)
	assert.EqualValues(t, 2900, sub.Data["amount"])

	bad := s.post(t, "/orders?dry_run=maybe", "k2", order("cus_1", 1, ""))
	assert.Equal(t, http.StatusBadRequest, bad.Status, bad)
	assert.Equal(t, 1, pay.Count())
}

func TestCorrectDownstreamFailureReleasesKey(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	pay.FailNext()
	failed := s.post(t, "/orders", "k", order("cus_1", 900, "m"))
	assert.Equal(t, http.StatusBadGateway, failed.Status, failed)
	assert.False(t, failed.OK)
	assert.True(t, strings.HasPrefix(failed.Error, "payments: "), failed.Error)
	assert.Equal(t, 0, pay.Count())

	retry := s.post(t, "/orders", "k", order("cus_1", 900, "m"))
	require.Equal(t, http.StatusOK, retry.Status, "a 502 is not stored, the retry executes: %s", retry)
	effect, _ := retry.Effect()
	assert.Equal(t, "created", effect)
	assert.Equal(t, 1, pay.Count())
}

func TestCorrectUnreachablePaymentsIs502(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)
	pay.srv.Close() // connection refused from now on

	r := s.post(t, "/orders", "k", order("cus_1", 900, "m"))
	assert.Equal(t, http.StatusBadGateway, r.Status, r)
	assert.True(t, strings.HasPrefix(r.Error, "payments: "), r.Error)
}

func TestCorrectSubscriptions(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	basic := s.post(t, "/subscriptions", "s1", map[string]any{"customer": "cus_1", "plan": "basic", "memo": "idem-00000000000000b1"})
	require.Equal(t, http.StatusOK, basic.Status, basic)
	assert.Equal(t, "sub_000001", basic.ID())
	assert.Equal(t, "basic", basic.Data["plan"])
	pro := s.post(t, "/subscriptions", "s2", map[string]any{"customer": "cus_1", "plan": "pro"})
	assert.Equal(t, "sub_000002", pro.ID())
	replay := s.post(t, "/subscriptions", "s1", map[string]any{"customer": "cus_1", "plan": "basic", "memo": "idem-00000000000000b1"})
	assert.Equal(t, basic.Data, replay.Data)

	charges := pay.Charges()
	require.Len(t, charges, 2)
	assert.EqualValues(t, 900, charges[0].Amount)
	assert.Equal(t, "idem-00000000000000b1", charges[0].Description)
	assert.EqualValues(t, 2900, charges[1].Amount)
}

func TestCorrectValidation(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	for _, tc := range []struct {
		why  string
		path string
		body any
	}{
		{"customer is required", "/orders", map[string]any{"amount": 1}},
		{"customer must be a string", "/orders", map[string]any{"customer": 7, "amount": 1}},
		{"amount is required", "/orders", map[string]any{"customer": "c"}},
		{"amounts are integer cents", "/orders", map[string]any{"customer": "c", "amount": 1.5}},
		{"amounts are positive", "/orders", map[string]any{"customer": "c", "amount": 0}},
		{"amounts are numbers", "/orders", map[string]any{"customer": "c", "amount": "12"}},
		{"memo must be a string", "/orders", map[string]any{"customer": "c", "amount": 1, "memo": 3}},
		{"the body is an object", "/orders", []int{1}},
		{"plans are basic or pro", "/subscriptions", map[string]any{"customer": "c", "plan": "gold"}},
		{"plan is required", "/subscriptions", map[string]any{"customer": "c"}},
	} {
		r := s.post(t, tc.path, "key-"+tc.why, tc.body)
		assert.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.why, r)
		assert.False(t, r.OK, tc.why)
		assert.NotEmpty(t, r.Error, tc.why)
	}
	assert.Equal(t, 0, pay.Count())
}

func TestCorrectReadsAreSafe(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	empty := s.get(t, "/orders?customer=cus_1&trace=idem-00000000000000c1")
	require.Equal(t, http.StatusOK, empty.Status, empty)
	assert.Equal(t, `{"ok":true,"effect":"noop","data":{"orders":[]}}`, empty.Raw)

	created := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	s.post(t, "/orders", "k2", order("cus_2", 100, "m"))
	list := s.get(t, "/orders?customer=cus_1")
	orders, _ := list.Data["orders"].([]any)
	require.Len(t, orders, 1, list)
	assert.Equal(t, created.Data, orders[0])
	assert.Equal(t, 2, pay.Count(), "reads charge nothing")

	health := s.get(t, "/healthz")
	assert.Equal(t, http.StatusOK, health.Status)
}

func TestCorrectRoutes(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	r, err := s.do(http.MethodDelete, "/orders", "", nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusMethodNotAllowed, r.Status, r)
	assert.Equal(t, "GET, POST", r.Header.Get("Allow"))
	assert.Equal(t, http.StatusNotFound, s.get(t, "/nope").Status)
}

func TestCorrectAcceptsQuotedKey(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "correct", pay)

	// draft-ietf-httpapi-idempotency-key-header sends the key as a
	// structured-field string; Stripe sends it bare. Both name one key.
	s.post(t, "/orders", `"k-1"`, order("cus_1", 100, "m"))
	r := s.post(t, "/orders", "k-1", order("cus_1", 100, "m"))
	effect, _ := r.Effect()
	assert.Equal(t, "noop", effect, r)
	require.Equal(t, 1, pay.Count())
	assert.Equal(t, "k-1", pay.Charges()[0].Key)
}
