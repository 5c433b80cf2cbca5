package shop_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// These tests look closer at each planted flaw than the probes in
// profiles_test.go do: what exactly a client sees.

func TestNokeyIgnoresKeysAndDryRun(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "nokey", pay)

	a := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	b := s.post(t, "/orders?dry_run=true", "k", order("cus_1", 100, "m"))
	assert.Equal(t, `{"ok":true,"data":{"id":"ord_000001","charge":"ch_000001","customer":"cus_1","amount":100,"currency":"usd","memo":"m"}}`, a.Raw)
	assert.Equal(t, "ord_000002", b.ID(), "dry_run is ignored: a real order")
	assert.Empty(t, b.Header.Get("Idempotent-Replayed"))
	require.Equal(t, 2, pay.Count())
	assert.Empty(t, pay.Charges()[0].Key, "no key is passed downstream")
}

func TestNoeffectReplaysFaithfullyWithoutEffect(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "noeffect", pay)

	first := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	replay := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	assert.Equal(t, first.Raw, replay.Raw, "without an effect field a replay looks exactly like the first run")
	assert.Empty(t, replay.Header.Get("Idempotent-Replayed"), "nor does a header mark it")
	dry := s.post(t, "/orders?dry_run=true", "k2", order("cus_1", 100, "m"))
	assert.NotContains(t, dry.Raw, "effect")
	assert.Equal(t, 1, pay.Count())
	assert.Equal(t, "k", pay.Charges()[0].Key)
}

func TestNodryrunKeylessRequestsAreNotDeduplicated(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "nodryrun", pay)

	a := s.post(t, "/orders", "", order("cus_1", 100, "m"))
	b := s.post(t, "/orders", "", order("cus_1", 100, "m"))
	assert.NotEqual(t, a.ID(), b.ID())
	assert.Equal(t, 2, pay.Count(), "without a key, a retry is a duplicate")
	assert.Empty(t, pay.Charges()[0].Key)

	// With a key it behaves like correct, 422 included.
	s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	r := s.post(t, "/orders", "k", order("cus_1", 101, "m"))
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r)
	assert.Equal(t, 3, pay.Count())
}

func TestMismatchReplaysFirstResultForAnotherPayload(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "mismatch", pay)

	first := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	other := s.post(t, "/orders", "k", order("cus_2", 9999, "idem-00000000000000a2"))
	assert.Equal(t, http.StatusOK, other.Status)
	effect, _ := other.Effect()
	assert.Equal(t, "noop", effect)
	assert.Equal(t, first.Data, other.Data, "the second intent silently gets the first one's order")
	assert.Equal(t, 1, pay.Count(), "the second intent is never charged")
}

func TestPayloadDedupMergesDistinctIntents(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "payload-dedup", pay)

	first := s.post(t, "/orders", "", order("cus_1", 100, "idem-00000000000000a1"))
	second := s.post(t, "/orders", "another-key", order("cus_1", 100, "idem-00000000000000a2"))
	effect, _ := second.Effect()
	assert.Equal(t, "noop", effect)
	assert.Equal(t, first.Data, second.Data)
	assert.Equal(t, "idem-00000000000000a1", second.Data["memo"], "the second intent's marker is lost")

	// Other inputs are another derived key.
	s.post(t, "/orders", "", order("cus_1", 101, "x"))
	s.post(t, "/subscriptions", "", map[string]any{"customer": "cus_1", "plan": "basic"})
	s.post(t, "/subscriptions", "", map[string]any{"customer": "cus_1", "plan": "pro"})
	charges := pay.Charges()
	require.Len(t, charges, 4)
	assert.True(t, strings.HasPrefix(charges[0].Key, "pd_"), "the derived key goes downstream: %q", charges[0].Key)
	assert.NotEqual(t, charges[0].Key, charges[1].Key)

	dry := s.post(t, "/orders?dry_run=true", "", order("cus_9", 100, "m"))
	effect, _ = dry.Effect()
	assert.Equal(t, "would_create", effect)
	assert.Equal(t, 4, pay.Count())
}

func TestUnstableReplayInventsAnID(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "unstable-replay", pay)

	first := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	r1 := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	r2 := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	assert.Equal(t, "ord_000001", first.ID())
	assert.Equal(t, `{"ok":true,"effect":"noop","data":{"id":"ord_000002"}}`, r1.Raw)
	assert.Equal(t, "ord_000003", r2.ID(), "every replay is another made-up id")
	assert.Equal(t, "true", r1.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, 1, pay.Count())

	sub := s.post(t, "/subscriptions", "s", map[string]any{"customer": "cus_1", "plan": "pro"})
	subReplay := s.post(t, "/subscriptions", "s", map[string]any{"customer": "cus_1", "plan": "pro"})
	assert.Equal(t, "sub_000001", sub.ID())
	assert.Equal(t, "sub_000002", subReplay.ID())
}

func TestMarkFirstAcknowledgesAFailedCharge(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "mark-first", pay)

	pay.FailNext()
	failed := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	assert.Equal(t, http.StatusBadGateway, failed.Status, failed)

	retry := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	require.Equal(t, http.StatusOK, retry.Status, retry)
	effect, _ := retry.Effect()
	assert.Equal(t, "noop", effect)
	assert.Equal(t, "ord_000001", retry.ID())
	assert.NotContains(t, retry.Data, "charge", "the planned reply was stored before there was a charge")
	assert.Equal(t, 0, pay.Count(), "acknowledged, never charged")

	// When the charge succeeds, the stored reply is the real one.
	ok := s.post(t, "/orders", "k2", order("cus_1", 100, "m"))
	replay := s.post(t, "/orders", "k2", order("cus_1", 100, "m"))
	assert.Equal(t, ok.Data, replay.Data)
	assert.Equal(t, 1, pay.Count())
}

func TestReadSideEffectChargesOncePerCustomer(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "read-side-effect", pay)

	r := s.get(t, "/orders?customer=cus_1&trace=idem-00000000000000f1")
	assert.Equal(t, `{"ok":true,"effect":"noop","data":{"orders":[]}}`, r.Raw, "the read looks innocent")
	s.get(t, "/orders?customer=cus_1&trace=idem-00000000000000f2")
	s.get(t, "/orders") // no customer, nothing to verify
	s.get(t, "/orders?customer=cus_2&trace=t2")

	charges := pay.Charges()
	require.Len(t, charges, 2)
	assert.Equal(t, charge{ID: "ch_000001", Amount: 100, Currency: "usd", Customer: "cus_1", Description: "verification idem-00000000000000f1"}, charges[0])
	assert.Equal(t, "verification t2", charges[1].Description)

	// A failed verification fails the read, and the next read tries again.
	pay.FailNext()
	failed := s.get(t, "/orders?customer=cus_3&trace=a")
	assert.Equal(t, http.StatusBadGateway, failed.Status, failed)
	s.get(t, "/orders?customer=cus_3&trace=b")
	assert.Equal(t, 3, pay.Count())
}

func TestMemoryCacheForgetsOnRestartAndKeepsTheKeyToItself(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	opts := shop.Options{Profile: "memory-cache", StateDir: t.TempDir()}
	s := mustServe(t, opts, pay)

	first := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	replay := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	assert.Equal(t, first.Data, replay.Data, "in one process it replays faithfully")
	assert.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
	s.stop()

	again := mustServe(t, opts, pay).post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	effect, _ := again.Effect()
	assert.Equal(t, "created", effect, again)
	charges := pay.Charges()
	require.Len(t, charges, 2, "the restarted shop charged again")
	assert.Empty(t, charges[0].Key, "payments was never told the key, so it could not catch the duplicate")
	assert.Empty(t, charges[1].Key)
}

func TestCheckThenActChargesConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "check-then-act", pay)

	// The first request has looked the key up and is charging: held there,
	// between its check and its insert.
	entered, release := pay.HoldNext(t)
	firstc := s.postAsync("/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	mustReceive(t, entered, "the first request to reach payments")
	second := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	release()
	first := mustReceive(t, firstc, "the first reply")

	require.Equal(t, http.StatusOK, first.Status, first)
	require.Equal(t, http.StatusOK, second.Status, second)
	assert.NotEqual(t, first.ID(), second.ID(), "two orders for one key")
	charges := pay.Charges()
	require.Len(t, charges, 2, "both saw no key and both charged")
	assert.Empty(t, charges[0].Key)
	assert.Empty(t, charges[1].Key)

	// The last insert wins; from then on the key replays it.
	replay := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	effect, _ := replay.Effect()
	assert.Equal(t, "noop", effect)
	assert.Equal(t, first.ID(), replay.ID(), "the first request finished last, its insert replaced the second's")
	assert.Equal(t, 2, pay.Count())
}

func TestCheckThenActWindowIsABusyWait(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	// A window far longer than any scheduling delay: with it the race is
	// certain even without a hold in payments.
	s := mustServe(t, shop.Options{Profile: "check-then-act", StateDir: t.TempDir(), Window: 200 * time.Millisecond}, pay)
	replies := burst(t, s, 2, "k", order("cus_1", 100, "m"))
	for _, r := range replies {
		assert.Equal(t, http.StatusOK, r.Status, r)
	}
	assert.Equal(t, 2, pay.Count())
}

func TestNoPropagationRetriesWithoutTheKey(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	s := mustStartShop(t, "no-propagation", pay)

	pay.FailNextAfterCharge()
	r := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	require.Equal(t, http.StatusOK, r.Status, "the shop's own retry succeeded: %s", r)
	charges := pay.Charges()
	require.Len(t, charges, 2, "one client request, two charges")
	assert.Equal(t, "k", charges[0].Key, "the first try carries the key")
	assert.Empty(t, charges[1].Key, "the retry does not")
	assert.Equal(t, charges[1].ID, r.Data["charge"])

	// The client's own retry is safe: the shop's store replays.
	replay := s.post(t, "/orders", "k", order("cus_1", 100, "idem-00000000000000a1"))
	assert.Equal(t, r.Data, replay.Data)
	assert.Equal(t, 2, pay.Count())
}

func TestLockNoLeaseIsCorrectWithinOneProcess(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	opts := shop.Options{Profile: "lock-no-lease", StateDir: t.TempDir()}
	s := mustServe(t, opts, pay)

	pay.FailNext()
	assert.Equal(t, http.StatusBadGateway, s.post(t, "/orders", "k", order("cus_1", 100, "m")).Status)
	first := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	require.Equal(t, http.StatusOK, first.Status, "a failed charge releases the key: %s", first)
	s.stop()
	again := mustServe(t, opts, pay).post(t, "/orders", "k", order("cus_1", 100, "m"))
	assert.Equal(t, first.Data, again.Data, "a completed key replays after a restart")
	assert.Equal(t, 1, pay.Count())
	// The flaw needs a crash: TestLockNoLeaseIsStuckAfterACrash.
}
