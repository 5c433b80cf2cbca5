package shop_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// behaviour is what a profile does under the probes the harness relies on.
// Each row of profileBehaviours differs from correct only where its planted
// flaw says it should.
type behaviour struct {
	// effects: success replies carry the effect field (created, noop,
	// would_create).
	effects bool
	// sameKeyCharges: charges after the same key and payload twice.
	sameKeyCharges int
	// replaySameID: the second reply has the first reply's data.id.
	replaySameID bool
	// missingKey: the status of a POST without Idempotency-Key.
	missingKey int
	// reuseStatus, reuseCharges: the same key with another amount.
	reuseStatus, reuseCharges int
	// dryRunCharges: charges caused by a dry_run=true request.
	dryRunCharges int
	// distinctCharges: two keys, the same customer and amount, two memos
	// (two intents, as the harness makes them).
	distinctCharges int
	// failStatus: the reply to a request whose charge payments refused
	// with 503 without charging.
	failStatus int
	// retryStatus, retryCharges: after that, the same key again.
	retryStatus, retryCharges int
	// inFlightStatus, inFlightCharges: the same key while the first is held
	// in payments.
	inFlightStatus, inFlightCharges int
	// readCharges: charges caused by GET /orders.
	readCharges int
	// downstreamKey: what the shop sends payments as the Idempotency-Key:
	// "client" (the client's key), "derived", or "none".
	downstreamKey string
	// restartCharges, restartSameID: the same key after the shop was
	// stopped and started again on the same state directory.
	restartCharges int
	restartSameID  bool
	// failAfterStatus, failAfterCharges: payments charged, then answered
	// 503 (the ambiguous downstream failure); the client retries with the
	// same key until it gets a 200.
	failAfterStatus, failAfterCharges int
	// failAfterReuseStatus: after that failure, before the retry, the
	// same key with another amount. The failed call's charge happened, so
	// the key must stay bound to its payload (422): were the other amount
	// to take the key over, the retry would be refused and the first
	// charge never answered.
	failAfterReuseStatus int
	// burstOnce: a burst of same-key requests released together charges
	// exactly once, and every 200 in it has the same id (if replays keep
	// ids). Otherwise it charges at least once.
	burstOnce bool
}

var correctBehaviour = behaviour{
	effects: true, sameKeyCharges: 1, replaySameID: true, missingKey: 400,
	reuseStatus: 422, reuseCharges: 1, dryRunCharges: 0, distinctCharges: 2,
	failStatus: 502, retryStatus: 200, retryCharges: 1,
	inFlightStatus: 409, inFlightCharges: 1, readCharges: 0,
	downstreamKey: "client", restartCharges: 1, restartSameID: true,
	failAfterStatus: 502, failAfterCharges: 1, failAfterReuseStatus: 422, burstOnce: true,
}

// with returns correctBehaviour changed by f: a row states only its flaw.
func with(f func(*behaviour)) behaviour {
	b := correctBehaviour
	f(&b)
	return b
}

var profileBehaviours = map[string]behaviour{
	"correct": correctBehaviour,
	// A store that forgets: within its retention, as correct, with the
	// key scoped by its admission downstream (retention_test.go).
	"bounded-keys":  with(func(b *behaviour) { b.downstreamKey = "admission" }),
	"expiring-keys": with(func(b *behaviour) { b.downstreamKey = "admission" }),
	// No strategy at all: every request charges and nothing says what it did.
	"nokey": {
		effects: false, sameKeyCharges: 2, replaySameID: false, missingKey: 200,
		reuseStatus: 200, reuseCharges: 2, dryRunCharges: 1, distinctCharges: 2,
		failStatus: 502, retryStatus: 200, retryCharges: 1,
		inFlightStatus: 200, inFlightCharges: 2, readCharges: 0,
		downstreamKey: "none", restartCharges: 2, restartSameID: false,
		failAfterStatus: 502, failAfterCharges: 2, failAfterReuseStatus: 200, burstOnce: false,
	},
	// Correct de-duplication, no effect field anywhere.
	"noeffect": with(func(b *behaviour) { b.effects = false }),
	// Keys optional and dry_run ignored.
	"nodryrun": with(func(b *behaviour) { b.missingKey = 200; b.dryRunCharges = 1 }),
	// No fingerprint: a reused key replays instead of 422.
	// After a failed call the other amount takes the key, and payments
	// refuses the reused key (402, stored).
	"mismatch": with(func(b *behaviour) { b.reuseStatus = 200; b.failAfterReuseStatus = 402 }),
	// Keys from inputs: distinct intents merge; the client's key is moot.
	"payload-dedup": with(func(b *behaviour) {
		b.missingKey = 200
		b.reuseStatus, b.reuseCharges = 200, 2 // another amount is another derived key
		b.failAfterReuseStatus = 200
		b.distinctCharges = 1
		b.downstreamKey = "derived"
	}),
	// Replays invent a new id.
	"unstable-replay": with(func(b *behaviour) { b.replaySameID = false; b.restartSameID = false }),
	// Marked done before charging: the retry after a failure replays a
	// success with no charge, and an in-flight duplicate gets that replay.
	// (After a charge that failed ambiguously the replay is right, by luck.)
	"mark-first": with(func(b *behaviour) { b.retryCharges = 0; b.inFlightStatus = 200 }),
	// The safe read charges.
	"read-side-effect": with(func(b *behaviour) { b.readCharges = 1 }),
	// Forgets on restart and keeps the key from payments.
	"memory-cache": with(func(b *behaviour) {
		b.downstreamKey = "none"
		b.restartCharges, b.restartSameID = 2, false
		b.failAfterCharges = 2
	}),
	// No claim between lookup and insert, no key downstream.
	"check-then-act": with(func(b *behaviour) {
		b.inFlightStatus, b.inFlightCharges = 200, 2
		b.downstreamKey = "none"
		b.failAfterCharges = 2
		b.failAfterReuseStatus = 200 // a failed call leaves no record
		b.burstOnce = false
	}),
	// Only a crash shows its flaw (crash_test.go): in one process it is
	// correct, and a graceful restart completes every key first.
	"lock-no-lease": correctBehaviour,
	// Retries a 5xx by itself without the key: a refusal before the charge
	// is papered over (200), a failure after it charges twice.
	"no-propagation": with(func(b *behaviour) {
		b.failStatus = 200
		b.failAfterStatus, b.failAfterCharges = 200, 2
	}),
	// Only a client that disconnects mid-request shows its flaw
	// (TestContextBookkeepingIsStuckAfterADisconnect): every probe here
	// runs to the end with the client connected.
	"context-bookkeeping": correctBehaviour,
	// Only a key reused on another endpoint shows its flaw
	// (TestUnscopedKeysReplayAcrossEndpoints): every probe here is on
	// /orders, where the guard is the correct one.
	"unscoped-keys": correctBehaviour,
	// Without Authorization headers, caller-unscoped is the correct shop:
	// its flaw shows only between two callers (examples/callers_test.go).
	"caller-unscoped": correctBehaviour,
	// Only a subscription shows its flaw (TestErrorAfterChargeAnswersAFailureThatHappened):
	// every probe here is on /orders, where the shop is the correct one.
	"error-after-charge": correctBehaviour,
	// Only a key longer than its column shows its flaw
	// (TestKeyColumnAnswersALongKeyWith500): every key here is short.
	"key-column-500": correctBehaviour,
	// No flaw: the correct shop, probed with UUID-shaped keys (testKey);
	// other keys are refused (TestUUIDKeysRefusesKeysThatAreNotUUIDs).
	"uuid-keys": correctBehaviour,
}

// flawless are the profiles built with no planted flaw (score 3).
var flawless = []string{"correct", "redis-correct", "uuid-keys"}

// testKey is the Idempotency-Key a test sends profile for the key k: k
// itself, or, for a profile that accepts UUIDs only, a UUID made from k
// (the same k always gives the same UUID, distinct ks distinct UUIDs).
func testKey(profile, k string) string {
	info, _ := shop.Describe(profile)
	if info.KeyFormat != "uuid" || k == "" {
		return k
	}
	h := sha256.Sum256([]byte(k))
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// skipRedis skips a test of a profile that keeps its keys in Redis: it
// exits at start without --redis, and examples/redis_test.go tests it
// against a real redis-server.
func skipRedis(t *testing.T, profile string) {
	t.Helper()
	if info, _ := shop.Describe(profile); info.Redis {
		t.Skipf("%s keeps its keys in Redis (--redis): it is tested against a real redis-server in examples/redis_test.go", profile)
	}
}

func TestProfilesAreListedSortedAndDescribed(t *testing.T) {
	assert.True(t, slices.IsSorted(shop.Profiles))
	var names []string
	for name := range profileBehaviours {
		names = append(names, name)
	}
	for _, name := range shop.Profiles {
		if info, _ := shop.Describe(name); info.Redis {
			names = append(names, name) // tested in examples/redis_test.go
		}
	}
	slices.Sort(names)
	assert.Equal(t, names, shop.Profiles, "every profile has a row in profileBehaviours, or keeps its keys in Redis")
	for _, name := range shop.Profiles {
		info, ok := shop.Describe(name)
		require.True(t, ok, name)
		assert.Equal(t, name, info.Name)
		assert.Equal(t, slices.Contains(flawless, name), info.Flaw == "", "%s: only %v have no flaw", name, flawless)
		assert.Equal(t, info.Flaw == "", info.Score == 3, "%s: a profile without a flaw scores 3, one with a flaw less", name)
		assert.Equal(t, strings.HasPrefix(name, "redis-"), info.Redis, "%s: the redis-* profiles, and only they, keep their keys in Redis", name)
		assert.Equal(t, name == "uuid-keys", info.KeyFormat == "uuid", "%s: only uuid-keys validates its keys", name)
		_, hasRow := profileBehaviours[name]
		assert.NotEqual(t, info.Redis, hasRow, "%s: a row in profileBehaviours unless it keeps its keys in Redis", name)
	}
	_, ok := shop.Describe("nope")
	assert.False(t, ok)
}

// TestProfileBehaviours runs every probe against every profile. A profile
// that loses its planted flaw, or grows a second one, fails here.
func TestProfileBehaviours(t *testing.T) {
	t.Parallel()
	for _, name := range shop.Profiles {
		want := profileBehaviours[name]
		key := func(k string) string { return testKey(name, k) }
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			skipRedis(t, name)
			t.Run("same key twice", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				first := s.post(t, "/orders", key("k"), order("cus_1", 1234, "idem-0000000000000001"))
				second := s.post(t, "/orders", key("k"), order("cus_1", 1234, "idem-0000000000000001"))
				require.Equal(t, http.StatusOK, first.Status, first)
				require.Equal(t, http.StatusOK, second.Status, second)
				assert.Equal(t, want.sameKeyCharges, pay.Count())
				assert.Equal(t, want.replaySameID, first.ID() == second.ID(), "first %s, second %s", first, second)
				assertEffect(t, want.effects, "created", first)
				if want.sameKeyCharges == 1 {
					assertEffect(t, want.effects, "noop", second)
				} else {
					assertEffect(t, want.effects, "created", second)
				}
				sent := pay.Charges()[0].Key
				switch want.downstreamKey {
				case "client":
					assert.Equal(t, key("k"), sent, "the client's key goes downstream")
				case "derived":
					assert.True(t, strings.HasPrefix(sent, "pd_"), "a derived key goes downstream: %q", sent)
				case "admission":
					assert.True(t, strings.HasPrefix(sent, "adm_"), "the key scoped by its admission goes downstream: %q", sent)
				default:
					assert.Empty(t, sent, "no key goes downstream")
				}
			})
			t.Run("missing key", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				r := s.post(t, "/orders", "", order("cus_1", 1234, "m"))
				assert.Equal(t, want.missingKey, r.Status, r)
				assert.Equal(t, map[bool]int{true: 1, false: 0}[want.missingKey == 200], pay.Count())
			})
			t.Run("key reused with another amount", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				first := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				r := s.post(t, "/orders", key("k"), order("cus_1", 200, "m"))
				assert.Equal(t, want.reuseStatus, r.Status, r)
				assert.Equal(t, want.reuseCharges, pay.Count())
				if want.reuseStatus == 200 && want.reuseCharges == 1 {
					assert.Equal(t, first.Data, r.Data, "a blind replay returns the first result")
				}
			})
			t.Run("dry run", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				dry := s.post(t, "/orders?dry_run=true", key("k"), order("cus_1", 100, "m"))
				require.Equal(t, http.StatusOK, dry.Status, dry)
				assert.Equal(t, want.dryRunCharges, pay.Count())
				if want.dryRunCharges == 0 {
					assertEffect(t, want.effects, "would_create", dry)
					real := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
					assertEffect(t, want.effects, "created", real)
					assert.Equal(t, 1, pay.Count(), "the dry run left the key unused")
				}
			})
			t.Run("distinct keys, equal inputs", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				s.post(t, "/orders", key("k1"), order("cus_1", 100, "idem-00000000000000e1"))
				s.post(t, "/orders", key("k2"), order("cus_1", 100, "idem-00000000000000e2"))
				assert.Equal(t, want.distinctCharges, pay.Count())
			})
			t.Run("retry after downstream 503", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				pay.FailNext()
				failed := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				assert.Equal(t, want.failStatus, failed.Status, failed)
				retry := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				assert.Equal(t, want.retryStatus, retry.Status, retry)
				assert.Equal(t, want.retryCharges, pay.Count())
			})
			// failedAfterCharge starts the profile and sends it a request
			// whose charge payments makes and then answers 503.
			failedAfterCharge := func(t *testing.T) (*payments, *testShop, result) {
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				pay.FailNextAfterCharge()
				return pay, s, s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
			}
			t.Run("retry after downstream failure after the charge", func(t *testing.T) {
				t.Parallel()
				pay, s, failed := failedAfterCharge(t)
				assert.Equal(t, want.failAfterStatus, failed.Status, failed)
				if failed.Status != http.StatusOK {
					retry := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
					assert.Equal(t, http.StatusOK, retry.Status, retry)
				}
				assert.Equal(t, want.failAfterCharges, pay.Count())
			})
			t.Run("another amount after a downstream failure after the charge", func(t *testing.T) {
				t.Parallel()
				pay, s, failed := failedAfterCharge(t)
				require.Equal(t, want.failAfterStatus, failed.Status, failed)
				if failed.Status == http.StatusOK {
					return
				}
				other := s.post(t, "/orders", key("k"), order("cus_1", 200, "m"))
				assert.Equal(t, want.failAfterReuseStatus, other.Status, "the same key with another amount after the failure: %s", other)
				if want.failAfterReuseStatus != http.StatusUnprocessableEntity {
					return
				}
				retry := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				assert.Equal(t, http.StatusOK, retry.Status, "the retry of the first request still completes it: %s", retry)
				assert.Equal(t, want.failAfterCharges, pay.Count())
				if want.failAfterCharges == 1 && want.retryCharges == 1 {
					assert.Equal(t, pay.Charges()[0].ID, retry.Data["charge"], "with the charge the failed call made")
				}
			})
			t.Run("same key after a restart", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				opts := shop.Options{Profile: name, StateDir: t.TempDir()}
				s := mustServe(t, opts, pay)
				first := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				require.Equal(t, http.StatusOK, first.Status, first)
				s.stop()
				again := mustServe(t, opts, pay).post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				require.Equal(t, http.StatusOK, again.Status, again)
				assert.Equal(t, want.restartCharges, pay.Count())
				assert.Equal(t, want.restartSameID, first.ID() == again.ID() && first.Data["charge"] == again.Data["charge"],
					"before %s, after %s", first, again)
			})
			t.Run("burst of one key", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				replies := burst(t, s, 20, key("k"), order("cus_1", 100, "m"))
				ids := map[string]bool{}
				for _, r := range replies {
					assert.Contains(t, []int{http.StatusOK, http.StatusConflict}, r.Status, r)
					if r.Status == http.StatusOK {
						ids[r.ID()] = true
					}
				}
				if !want.burstOnce {
					assert.GreaterOrEqual(t, pay.Count(), 1)
					return
				}
				assert.Equal(t, 1, pay.Count(), "one execution")
				if want.replaySameID {
					assert.Len(t, ids, 1, "every success names the same order: %v", ids)
				}
			})
			t.Run("same key while in flight", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				entered, release := pay.HoldNext(t)
				firstc := s.postAsync("/orders", key("k"), order("cus_1", 100, "m"))
				mustReceive(t, entered, "the first request to reach payments")
				dup := s.post(t, "/orders", key("k"), order("cus_1", 100, "m"))
				release()
				first := mustReceive(t, firstc, "the first reply")
				assert.Equal(t, http.StatusOK, first.Status, first)
				assert.Equal(t, want.inFlightStatus, dup.Status, dup)
				assert.Equal(t, want.inFlightCharges, pay.Count())
			})
			t.Run("safe read", func(t *testing.T) {
				t.Parallel()
				pay := newPayments(t)
				s := mustStartShop(t, name, pay)
				r := s.get(t, "/orders?customer=cus_1&trace=idem-00000000000000f1")
				require.Equal(t, http.StatusOK, r.Status, r)
				assertEffect(t, want.effects, "noop", r)
				assert.Equal(t, want.readCharges, pay.Count())
			})
		})
	}
}

// burst sends n copies of one request at once: all goroutines are started
// and waiting first, then released together; it returns every reply.
func burst(t *testing.T, s *testShop, n int, key string, body any) []result {
	t.Helper()
	start := make(chan struct{})
	out := make(chan result, n)
	for range n {
		go func() {
			<-start
			r, err := s.do(http.MethodPost, "/orders", key, body)
			if err != nil {
				r = result{Status: -1, Raw: err.Error()}
			}
			out <- r
		}()
	}
	close(start)
	replies := make([]result, 0, n)
	for range n {
		replies = append(replies, mustReceive(t, out, "a reply of the burst"))
	}
	return replies
}

// assertEffect checks the effect field: equal to want when the profile
// reports effects, absent when it does not.
func assertEffect(t *testing.T, effects bool, want string, r result) {
	t.Helper()
	got, present := r.Effect()
	if !effects {
		assert.False(t, present, "this profile never sends an effect field: %s", r)
		return
	}
	assert.True(t, present, "missing effect field: %s", r)
	assert.Equal(t, want, got, r)
}
