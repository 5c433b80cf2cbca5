package examples_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

func failingChecks(tr harness.TargetResult) []string {
	var ids []string
	for _, c := range tr.Checks {
		if c.Status == harness.StatusFail {
			ids = append(ids, c.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// TestWebhookTargets runs every webhook demo target as a real process
// through the harness and asserts its score and exactly the checks its
// planted flaw violates.
func TestWebhookTargets(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	want := map[string]struct {
		failing []string
		why     string
	}{
		"webhook-correct":         {nil, "durable claim with a lease, key downstream, ack after processing: no finding under any fault"},
		"webhook-lru-memory":      {[]string{"crash.recovery", "downstream.propagation", "retry.after-fault"}, "seen ids die with the process, no key goes downstream, and a charge cut short by a sender who left releases the claim"},
		"webhook-mark-seen-first": {[]string{"exactly-once"}, "marked seen before processing: a failed or crashed processing is lost"},
		"webhook-no-signature":    {[]string{"webhook.signature"}, "processes forged events"},
		"webhook-high-water-mark": {[]string{"webhook.out-of-order"}, "skips events older than the newest processed: overtaken events are lost"},
		"correct-email":           {nil, "a charge and an email per order, each exactly once under every fault"},
		"email-without-key":       {[]string{"crash.recovery", "downstream.propagation"}, "the email goes without the key: a retry after a fault at the email, the second downstream call, sends it again"},
	}
	demo := examples.WebhookDemo(exe)
	require.Len(t, demo, len(want))
	specs := make([]harness.Spec, len(demo))
	for i, d := range demo {
		_, ok := want[d.Spec.Name]
		require.True(t, ok, "no expectation for %s", d.Spec.Name)
		specs[i] = d.Spec
	}
	results := verifyTogether(t, specs, harness.WithSeed(7))
	for i, d := range demo {
		tc := want[d.Spec.Name]
		t.Run(d.Spec.Name, func(t *testing.T) {
			tr := results[i]
			require.Empty(t, tr.Error, tc.why)
			for _, f := range tr.Findings {
				t.Logf("%s %s %s: %s", f.Severity, f.Check, f.Fault, f.Message)
			}
			// A sender that leaves mid-delivery is charged again: the
			// handler cancels its charge with the request and releases the
			// claim. The payments fake waits for the handler to give up
			// its call before it answers, so this is found every time.
			failing := failingChecks(tr)
			if d.Spec.Name == "webhook-high-water-mark" {
				// Its flaw (an event older than the newest seen is
				// dropped) also loses one of several distinct events
				// sent at once, when they happen to arrive out of order:
				// concurrent.distinct may see it too.
				failing = slices.DeleteFunc(failing, func(c string) bool { return c == "concurrent.distinct" })
			}
			assert.Equal(t, tc.failing, failing, tc.why)
			assert.Equal(t, d.Built, tr.Score.Level, "%s: %s", tc.why, tr.Score.Reason)
			if d.Spec.Kind == webhook.Kind {
				for _, c := range tr.Checks {
					if c.ID == harness.CheckEffectField || c.ID == harness.CheckDryRun {
						assert.Equal(t, harness.StatusSkip, c.Status, "not applicable to webhooks")
					}
				}
			}
			if d.Spec.Name == "correct-email" || d.Spec.Name == "email-without-key" {
				// Every downstream fault and crash point is armed at the
				// charge and at the email in turn, and reaches both.
				lines := map[string]bool{}
				for _, c := range tr.Coverage {
					lines[c.String()] = true
				}
				for _, f := range []string{"crash-before-effect", "crash-after-effect", "downstream-503", "downstream-503-after", "downstream-reset-after"} {
					assert.True(t, lines["create-order: "+f+": payments ✓ email ✓"], "%s reached both effect points: %v", f, tr.Coverage)
				}
			}
			if d.Spec.Name == "email-without-key" {
				found := false
				for _, f := range tr.Findings {
					found = found || strings.Contains(f.Message, " at email") && strings.Contains(f.Message, "message msg_")
				}
				assert.True(t, found, "a finding names the duplicate email, under a fault at the email")
				// The charge went with a key and was made once: each
				// duplicate is the email's, and its finding says so
				// rather than blaming the target's key store.
				for _, f := range tr.Findings {
					if f.Severity != "critical" {
						continue
					}
					assert.Contains(t, f.Message, "the email send was given no idempotency key", "%s: %s", f.Check, f.Message)
					for _, wrong := range []string{"claim it atomically", "key store", "not honoured", "charged again"} {
						assert.NotContains(t, f.Message, wrong, "%s: %s", f.Check, f.Message)
					}
				}
			}
			if d.Spec.Name == "correct-email" {
				both := 0
				for i := range tr.Record.Intents {
					in := &tr.Record.Intents[i]
					if in.Operation != "create-order" {
						continue
					}
					kinds := map[string]int{}
					for _, e := range tr.Record.EffectsOf(in) {
						kinds[e.Fake+"/"+e.Kind]++
					}
					assert.Equal(t, kinds["payments/charge"], kinds["email/message"], "intent %d (%s): one email per charged order", in.ID, in.Probe)
					if kinds["payments/charge"] == 1 {
						both++
					}
				}
				assert.Positive(t, both, "orders were charged and confirmed")
			}
		})
	}
}

// startHandler starts one webhook profile as a process, with a payments
// fake, outside harness.Verify: for the deliveries the harness has no
// probe for yet (a bad signature, out-of-order events).
func startHandler(t *testing.T, profile string) (*webhook.Target, *fakes.Ledger) {
	t.Helper()
	exe := refexe.Path(t)
	ledger := fakes.NewLedger()
	pay := payments.Start(t, payments.Options{Ledger: ledger})
	env := &harness.Env{Fakes: map[string]fakes.Fake{"payments": pay}, Ledger: ledger, StateDir: t.TempDir(), RunID: "webhooks-test"}
	tg, err := examples.WebhookSpec(exe, profile).Start(t.Context(), env)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, tg.Close()) })
	return tg.(*webhook.Target), ledger
}

func invoice(id, key, marker string) harness.Call {
	return harness.Call{ID: id, Operation: "invoice.due", Key: key, Marker: marker,
		Inputs: map[string]string{"customer": "cus_00000001", "amount": "1234"}}
}

// TestWebhookSignature is the webhook.signature check done by hand: a
// delivery with a bad signature must be refused (4xx) with no effect, and
// must not consume the event id.
func TestWebhookSignature(t *testing.T) {
	t.Parallel()
	const marker = "idem-00000000000000b1"
	for _, tc := range []struct {
		profile string
		refused bool
		why     string
	}{
		{"correct", true, "verifies before touching anything"},
		{"no-signature", false, "processes a forged event"},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			tg, ledger := startHandler(t, tc.profile)
			bad := tg.BadSignature(t.Context(), invoice("bad-1", "evt_sig_1", marker))
			if tc.refused {
				assert.Equal(t, 401, bad.Status, "%s: %+v", tc.why, bad)
				assert.Equal(t, harness.Fail, bad.Outcome)
				assert.Empty(t, ledger.ByMarker(marker), "a refused delivery causes no effect")
			} else {
				assert.Equal(t, 200, bad.Status, "%s: %+v", tc.why, bad)
				assert.Len(t, ledger.ByMarker(marker), 1, tc.why)
			}
			good := tg.Call(t.Context(), invoice("good-1", "evt_sig_1", marker))
			assert.Equal(t, harness.OK, good.Outcome, "%+v", good)
			assert.Len(t, ledger.ByMarker(marker), 1, "the genuine delivery is processed once in all")
		})
	}
}

// TestWebhookOutOfOrder is the proposed webhook.out-of-order check done by
// hand: three events delivered newest first must each be processed once.
func TestWebhookOutOfOrder(t *testing.T) {
	t.Parallel()
	markers := []string{"idem-00000000000000c1", "idem-00000000000000c2", "idem-00000000000000c3"}
	for _, tc := range []struct {
		profile string
		charged []int // per marker
		why     string
	}{
		{"correct", []int{1, 1, 1}, "de-duplicates by id: order does not matter"},
		{"high-water-mark", []int{0, 0, 1}, "skips events older than the newest processed: the two overtaken ones are lost"},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			tg, ledger := startHandler(t, tc.profile)
			var calls []harness.Call
			for i, m := range markers {
				calls = append(calls, invoice("ooo-"+m, "evt_ooo_"+m, m))
				_ = i
			}
			for i, rep := range tg.OutOfOrder(t.Context(), calls) {
				assert.Equal(t, harness.OK, rep.Outcome, "every delivery is acknowledged (%d): %+v", i, rep)
			}
			for i, m := range markers {
				assert.Len(t, ledger.ByMarker(m), tc.charged[i], "%s: event %d", tc.why, i+1)
			}
			// A redelivery of everything changes nothing.
			for _, c := range calls {
				assert.Equal(t, harness.OK, tg.Call(t.Context(), c).Outcome)
			}
			total := 0
			for _, n := range tc.charged {
				total += n
			}
			assert.Len(t, ledger.Effects(), total)
		})
	}
}
