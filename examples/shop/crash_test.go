package shop_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// These tests crash the shop for real: it runs as a child process, is
// killed with SIGKILL at the point the harness's crash faults aim at, and
// is started again on the same state directory; then the client retries
// with the same key.

// crashOutcome is what the retry after the restart sees.
type crashOutcome struct {
	status  int // of the retry
	charges int // in all
}

// crashWant returns the outcomes of profile: correct's unless its flaw
// shows under a crash.
func crashWant(profile string) (afterEffect, beforeEffect crashOutcome, afterReplyCharges int, afterReplySame bool) {
	afterEffect, beforeEffect = crashOutcome{200, 1}, crashOutcome{200, 1}
	afterReplyCharges, afterReplySame = 1, true
	switch profile {
	case "nokey", "memory-cache":
		// Nothing survives the process and payments never sees a key.
		afterEffect.charges = 2
		afterReplyCharges, afterReplySame = 2, false
	case "check-then-act":
		// Nothing is written before the charge and no key goes
		// downstream; the reply, though, was stored before it was sent.
		afterEffect.charges = 2
	case "lock-no-lease":
		// The in_progress mark outlives its process: stuck, not doubled.
		afterEffect = crashOutcome{409, 1}
		beforeEffect = crashOutcome{409, 0}
	case "mark-first":
		// The planned reply was stored before the charge: the retry
		// replays a success whether or not the charge happened.
		beforeEffect.charges = 0
	case "unstable-replay":
		afterReplySame = false // a replay is a made-up id
	}
	return
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	for _, profile := range shop.Profiles {
		afterEffect, beforeEffect, afterReplyCharges, afterReplySame := crashWant(profile)
		body := order("cus_1", 1234, "idem-00000000000000c1")
		k := testKey(profile, "k")
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			skipRedis(t, profile)
			t.Run("crash after effect", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				retry := crashAtCharge(t, profile, pay, true, k, body)
				assert.Equal(t, afterEffect.status, retry.Status, retry)
				assert.Equal(t, afterEffect.charges, pay.Count())
			})
			t.Run("crash before effect", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				retry := crashAtCharge(t, profile, pay, false, k, body)
				assert.Equal(t, beforeEffect.status, retry.Status, retry)
				assert.Equal(t, beforeEffect.charges, pay.Count())
			})
			t.Run("crash after reply", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				dir := t.TempDir()
				first := mustStartProcess(t, profile, pay, dir)
				r := first.post(t, "/orders", k, body)
				require.Equal(t, http.StatusOK, r.Status, r)
				first.kill(t)
				retry := mustStartProcess(t, profile, pay, dir).post(t, "/orders", k, body)
				assert.Equal(t, http.StatusOK, retry.Status, retry)
				assert.Equal(t, afterReplySame, assert.ObjectsAreEqual(r.Data, retry.Data), "first %s, retry %s", r, retry)
				assert.Equal(t, afterReplyCharges, pay.Count())
			})
		})
	}
}

// crashAtCharge starts profile as a process, sends an order with key,
// kills the process while its charge is at payments (after payments
// charged if afterEffect), starts it again on the same state directory and
// returns the reply to the same request sent again.
func crashAtCharge(t *testing.T, profile string, pay *payments, afterEffect bool, key string, body map[string]any) result {
	t.Helper()
	dir := t.TempDir()
	first := mustStartProcess(t, profile, pay, dir)
	h := pay.holdNext(t, afterEffect)
	lost := first.postAsync("/orders", key, body)
	mustReceive(t, (<-chan struct{})(h.entered), "the charge request at payments")
	first.kill(t)
	r := mustReceive(t, lost, "the request to fail with its process")
	require.Equal(t, -1, r.Status, "the client got no reply: %s", r)
	mustReceive(t, (<-chan struct{})(h.left), "payments to see the shop go away")
	if afterEffect {
		require.Equal(t, 1, pay.Count(), "charged before the crash")
	} else {
		require.Equal(t, 0, pay.Count(), "not charged before the crash")
	}
	return mustStartProcess(t, profile, pay, dir).post(t, "/orders", key, body)
}

func TestCorrectReclaimsTheKeyOfACrashedProcess(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	body := order("cus_1", 1234, "idem-00000000000000c2")
	retry := crashAtCharge(t, "correct", pay, true, "k", body)

	require.Equal(t, http.StatusOK, retry.Status, retry)
	effect, _ := retry.Effect()
	assert.Equal(t, "created", effect, "the client never saw a success before: %s", retry)
	assert.Empty(t, retry.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, "ch_000001", retry.Data["charge"], "the charge the dead process made")
	require.Equal(t, 1, pay.Count())
	calls := pay.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, call{Key: "k", Status: -1}, calls[0], "the reply the crash lost")
	assert.Equal(t, call{Key: "k", Status: http.StatusOK, Replayed: true}, calls[1], "the retry re-executed with the same key and payments replayed")
}

func TestLockNoLeaseIsStuckAfterACrash(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	body := order("cus_1", 1234, "idem-00000000000000c3")
	dir := t.TempDir()
	first := mustStartProcess(t, "lock-no-lease", pay, dir)
	h := pay.holdNext(t, true)
	lost := first.postAsync("/orders", "k", body)
	mustReceive(t, (<-chan struct{})(h.entered), "the charge request at payments")
	first.kill(t)
	mustReceive(t, lost, "the request to fail with its process")

	for restart := range 2 {
		p := mustStartProcess(t, "lock-no-lease", pay, dir)
		for range 2 {
			r := p.post(t, "/orders", "k", body)
			assert.Equal(t, http.StatusConflict, r.Status, "restart %d: %s", restart, r)
			assert.Equal(t, "request with this key is in flight", r.Error)
		}
		// Other keys are fine: the store itself works.
		other := p.post(t, "/orders", "other-"+string(rune('a'+restart)), order("cus_1", 1, "m"))
		assert.Equal(t, http.StatusOK, other.Status, other)
		p.kill(t)
	}
	assert.Equal(t, 3, pay.Count(), "the stuck intent was charged once, and never again")
}
