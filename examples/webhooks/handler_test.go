package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/webhooks"
	"github.com/idemcheck/idemcheck/fakes"
)

const markerA = "idem-00000000000000a1"

func TestCorrectProcessesOnceAndAcknowledgesRedeliveries(t *testing.T) {
	h := startHandler(t, "correct", webhooks.Options{})
	body := event("evt_1", markerA, 1)
	first := h.send(t, body)
	assert.Equal(t, http.StatusOK, first.status, first.body)
	assert.JSONEq(t, `{"received":true}`, first.body)
	again := h.send(t, body)
	assert.Equal(t, http.StatusOK, again.status)
	assert.JSONEq(t, `{"received":true,"duplicate":true}`, again.body)
	assert.Equal(t, 1, h.charges(markerA))
	assert.Equal(t, "evt_1", h.pay.Ledger().Effects()[0].Key, "the event id goes downstream as the key")
}

func TestSignatures(t *testing.T) {
	body := event("evt_1", markerA, 1)
	stale := func() string {
		ts := time.Now().Add(-10 * time.Minute).Unix()
		mac := hmac.New(sha256.New, []byte(secret))
		fmt.Fprintf(mac, "%d.%s", ts, body)
		return fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))
	}
	tests := []struct {
		name, sig, mention string
	}{
		{"missing", "", "missing"},
		{"malformed", "sha256=abc", "malformed"},
		{"wrong secret", strings.Replace(sign(body), "v1=", "v1=00", 1), "does not match"},
		{"other body", sign(body + " "), "does not match"},
		{"stale", stale(), "tolerance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, profile := range []string{"correct", "no-signature"} {
				h := startHandler(t, profile, webhooks.Options{})
				r := h.deliver(t, body, tt.sig)
				if profile == "no-signature" {
					assert.Equal(t, http.StatusOK, r.status, "no-signature accepts anything: %s", r.body)
					assert.Equal(t, 1, h.charges(markerA))
					continue
				}
				assert.Equal(t, http.StatusUnauthorized, r.status, r.body)
				assert.Contains(t, r.body, tt.mention)
				assert.Zero(t, h.charges(markerA))
				assert.Equal(t, http.StatusOK, h.send(t, body).status, "the refused delivery did not consume the event id")
				assert.Equal(t, 1, h.charges(markerA))
			}
		})
	}
}

func TestBadEvents(t *testing.T) {
	h := startHandler(t, "correct", webhooks.Options{})
	for _, body := range []string{
		`nope`,
		`{"type":"invoice.due"}`,
		`{"id":"","type":"invoice.due"}`,
		`{"id":"e"}`,
		`{"id":"e","type":"invoice.due","data":{"customer":"c","amount":0}}`,
		`{"id":"e","type":"invoice.due","data":{"amount":5}}`,
		`{"id":"e","type":"invoice.due","created":"soon","data":{"customer":"c","amount":5}}`,
		`{"id":"e","type":"invoice.due","data":{"customer":"c","amount":5}} {}`,
	} {
		r := h.send(t, body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", body, r.body)
	}
	assert.Empty(t, h.pay.Ledger().Effects())
}

func TestPingsAndUnknownTypesCauseNothing(t *testing.T) {
	h := startHandler(t, "correct", webhooks.Options{})
	for _, body := range []string{`{"id":"e1","type":"ping","data":{"trace":"` + markerA + `"}}`, `{"id":"e2","type":"customer.created"}`} {
		r := h.send(t, body)
		assert.Equal(t, http.StatusOK, r.status, r.body)
	}
	assert.Empty(t, h.pay.Ledger().Effects())
}

func TestCorrectFailedChargeIsRedelivered(t *testing.T) {
	h := startHandler(t, "correct", webhooks.Options{})
	h.pay.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailBefore})
	body := event("evt_1", markerA, 1)
	assert.Equal(t, http.StatusBadGateway, h.send(t, body).status)
	assert.Equal(t, http.StatusOK, h.send(t, body).status, "the claim was released")
	assert.Equal(t, 1, h.charges(markerA))
}

func TestCorrectAmbiguousChargeIsReplayedDownstream(t *testing.T) {
	h := startHandler(t, "correct", webhooks.Options{})
	h.pay.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailAfter})
	body := event("evt_1", markerA, 1)
	assert.Equal(t, http.StatusBadGateway, h.send(t, body).status)
	assert.Equal(t, http.StatusOK, h.send(t, body).status)
	assert.Equal(t, 1, h.charges(markerA), "payments replayed the charge: same key")
}

func TestCorrectConcurrentRedeliveryGets409(t *testing.T) {
	h := startHandler(t, "correct", webhooks.Options{})
	entered, release := make(chan struct{}), make(chan struct{})
	var once, rel sync.Once
	cancel := h.pay.Ledger().Observe(func(fakes.Effect) { once.Do(func() { close(entered); <-release }) })
	defer cancel()
	t.Cleanup(func() { rel.Do(func() { close(release) }) })

	body := event("evt_1", markerA, 1)
	first := make(chan result, 1)
	go func() { r, _ := h.try(body, sign(body)); first <- r }()
	select {
	case <-entered:
	case <-time.After(wait):
		t.Fatal("the first delivery never charged")
	}
	assert.Equal(t, http.StatusConflict, h.send(t, body).status, "in flight: redeliver later")
	rel.Do(func() { close(release) })
	assert.Equal(t, http.StatusOK, (<-first).status)
	assert.Equal(t, 1, h.charges(markerA))
}

func TestCorrectEventsSurviveARestart(t *testing.T) {
	state := t.TempDir()
	h := startHandler(t, "correct", webhooks.Options{StateDir: state})
	body := event("evt_1", markerA, 1)
	require.Equal(t, http.StatusOK, h.send(t, body).status)

	again := serve(t, webhooks.Options{Profile: "correct", Listen: "127.0.0.1:0", PaymentsURL: h.pay.URL(), Secret: secret, StateDir: state}, h.pay)
	r := again.send(t, body)
	assert.JSONEq(t, `{"received":true,"duplicate":true}`, r.body)
	assert.Equal(t, 1, h.charges(markerA))
}

func TestMarkSeenFirstLosesAFailedEvent(t *testing.T) {
	h := startHandler(t, "mark-seen-first", webhooks.Options{})
	h.pay.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailBefore})
	body := event("evt_1", markerA, 1)
	assert.Equal(t, http.StatusBadGateway, h.send(t, body).status)
	r := h.send(t, body)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.body, "duplicate", "the redelivery is skipped")
	assert.Zero(t, h.charges(markerA), "the event is lost")
}

func TestLRUMemoryForgetsEvictedAndRestarted(t *testing.T) {
	h := startHandler(t, "lru-memory", webhooks.Options{LRUSize: 2})
	markers := []string{"idem-00000000000000e1", "idem-00000000000000e2", "idem-00000000000000e3"}
	for i, m := range markers {
		require.Equal(t, http.StatusOK, h.send(t, event(fmt.Sprint("evt_", i), m, int64(i))).status)
	}
	assert.Contains(t, h.send(t, event("evt_2", markers[2], 2)).body, "duplicate", "still remembered")
	assert.NotContains(t, h.send(t, event("evt_0", markers[0], 0)).body, "duplicate", "evicted: processed again")
	assert.Equal(t, 2, h.charges(markers[0]))
	assert.Empty(t, h.pay.Ledger().Effects()[0].Key, "no key went downstream")

	// A restart forgets everything, whatever --state says.
	again := serve(t, webhooks.Options{Profile: "lru-memory", Listen: "127.0.0.1:0", PaymentsURL: h.pay.URL(), Secret: secret}, h.pay)
	again.send(t, event("evt_2", markers[2], 2))
	assert.Equal(t, 2, h.charges(markers[2]))
}

func TestHighWaterMarkSkipsOlderEvents(t *testing.T) {
	h := startHandler(t, "high-water-mark", webhooks.Options{})
	newer, older := "idem-00000000000000f2", "idem-00000000000000f1"
	require.Equal(t, http.StatusOK, h.send(t, event("evt_new", newer, 200)).status)
	r := h.send(t, event("evt_old", older, 100))
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.body, "duplicate")
	assert.Zero(t, h.charges(older), "an overtaken event is lost")
	assert.Equal(t, 1, h.charges(newer))
}

func TestProfilesAreDescribed(t *testing.T) {
	assert.Equal(t, []string{"correct", "high-water-mark", "lru-memory", "mark-seen-first", "no-signature"}, webhooks.Profiles)
	for _, name := range webhooks.Profiles {
		info, ok := webhooks.Describe(name)
		require.True(t, ok)
		assert.Equal(t, name, info.Name)
		assert.Equal(t, name == "correct", info.Flaw == "", name)
		assert.Equal(t, name == "correct", info.Check == "", name)
	}
	_, ok := webhooks.Describe("nope")
	assert.False(t, ok)
}
