package payments_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes/payments"
)

func TestIdempotencyReplay(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	body := form("amount", "100", "description", "order "+markerA)

	first := post(t, c, s, formType, body, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusOK, first.status)
	assert.False(t, first.replayed())

	again := post(t, c, s, formType, body, "Idempotency-Key", "k1")
	assert.Equal(t, first.status, again.status)
	assert.Equal(t, string(first.body), string(again.body), "a replay is byte for byte the first reply")
	assert.True(t, again.replayed(), "a replay says so in Idempotent-Replayed")

	// The same parameters as JSON are the same request.
	asJSON := post(t, c, s, jsonType, `{"description":"order `+markerA+`","amount":100}`, "Idempotency-Key", "k1")
	assert.Equal(t, string(first.body), string(asJSON.body))
	assert.True(t, asJSON.replayed())

	assert.Len(t, s.Ledger().Effects(), 1, "replays make no new charge")
	assert.Len(t, s.Charges(), 1)

	// A new key is a new charge.
	other := post(t, c, s, formType, body, "Idempotency-Key", "k2")
	assert.Equal(t, "ch_000002", chargeOf(t, other).ID)
	assert.False(t, other.replayed())
	assert.Len(t, s.Ledger().Effects(), 2)
}

func TestIdempotencyMismatch(t *testing.T) {
	tests := []struct {
		name, why, retry string
	}{
		{"amount", "a different amount is a different charge", form("amount", "200")},
		{"extra parameter", "every parameter counts, even ones the fake ignores", form("amount", "100", "source", "tok_visa")},
		{"metadata", "metadata is a parameter", form("amount", "100", "metadata[k]", "v")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := payments.Start(t)
			c := newClient(t)
			first := post(t, c, s, formType, form("amount", "100"), "Idempotency-Key", "k")
			require.Equal(t, http.StatusOK, first.status)

			r := post(t, c, s, formType, tt.retry, "Idempotency-Key", "k")
			e := errorOf(t, r, http.StatusBadRequest)
			assert.Equal(t, "idempotency_error", e.Error.Type, tt.why)
			assert.Contains(t, e.Error.Message, "Keys for idempotent requests can only be used with the same parameters they were first used with")
			assert.False(t, r.replayed())
			assert.Len(t, s.Ledger().Effects(), 1)
		})
	}
}

func TestIdempotencyInFlight(t *testing.T) {
	// The first request is held after its charge and before its reply, so
	// every other request with its key arrives while it is in flight.
	s := payments.Start(t)
	h := holdFirstEffect(t, s.Ledger())
	c := newClient(t)
	body := form("amount", "100")

	firstDone := make(chan result, 1)
	go func() {
		firstDone <- send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, body, "Idempotency-Key", "k")
	}()
	recv(t, h.entered, "the first charge to be recorded")

	const others = 49
	results := make(chan result, others)
	var wg sync.WaitGroup
	for range others {
		wg.Go(func() {
			results <- send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, body, "Idempotency-Key", "k")
		})
	}
	wg.Wait()
	close(results)
	for r := range results {
		require.NoError(t, r.err)
		e := errorOf(t, r, http.StatusConflict)
		assert.Equal(t, "idempotency_error", e.Error.Type)
		assert.Contains(t, e.Error.Message, "in flight")
	}

	h.release()
	first := recv(t, firstDone, "the first request's reply")
	require.NoError(t, first.err)
	assert.Equal(t, "ch_000001", chargeOf(t, first).ID)

	retry := post(t, c, s, formType, body, "Idempotency-Key", "k")
	assert.True(t, retry.replayed())
	assert.Equal(t, string(first.body), string(retry.body))
	assert.Len(t, s.Ledger().Effects(), 1)
}

func TestIdempotencyConcurrentSameKey(t *testing.T) {
	// No hold here: the requests race freely, and whatever the interleaving
	// exactly one of them may charge.
	s := payments.Start(t)
	c := newClient(t)
	const n = 50

	start := make(chan struct{})
	results := make(chan result, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			<-start
			results <- send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, form("amount", "100"), "Idempotency-Key", "same")
		})
	}
	close(start)
	wg.Wait()
	close(results)

	var charged, replayed, conflicts int
	var chargedBody string
	var replayBodies []string
	for r := range results {
		require.NoError(t, r.err)
		switch {
		case r.status == http.StatusOK && !r.replayed():
			charged++
			chargedBody = string(r.body)
		case r.status == http.StatusOK:
			replayed++
			replayBodies = append(replayBodies, string(r.body))
		case r.status == http.StatusConflict:
			conflicts++
		default:
			t.Errorf("unexpected reply %d: %s", r.status, r.body)
		}
	}
	assert.Equal(t, 1, charged, "exactly one request charges")
	assert.Equal(t, n, charged+replayed+conflicts)
	for _, b := range replayBodies {
		assert.Equal(t, chargedBody, b)
	}
	assert.Len(t, s.Ledger().Effects(), 1)
	assert.Len(t, s.Charges(), 1)
}

func TestIdempotencyFailedValidationReleasesKey(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)

	bad := post(t, c, s, formType, form("amount", "-1"), "Idempotency-Key", "k")
	errorOf(t, bad, http.StatusBadRequest)

	// Had the 400 been stored, this would be a mismatch or a replay of it.
	good := post(t, c, s, formType, form("amount", "100"), "Idempotency-Key", "k")
	assert.Equal(t, "ch_000001", chargeOf(t, good).ID)
	assert.False(t, good.replayed())
	assert.Len(t, s.Ledger().Effects(), 1)
}

func TestIdempotencyKeyTooLong(t *testing.T) {
	s := payments.Start(t)
	r := post(t, newClient(t), s, formType, form("amount", "100"), "Idempotency-Key", strings.Repeat("k", 256))
	errorOf(t, r, http.StatusBadRequest)
	assert.Empty(t, s.Ledger().Effects())
}

func TestIgnoreIdempotencyKeys(t *testing.T) {
	s := payments.Start(t, payments.Options{IgnoreIdempotencyKeys: true})
	c := newClient(t)
	body := form("amount", "100")

	first := post(t, c, s, formType, body, "Idempotency-Key", "k")
	second := post(t, c, s, formType, body, "Idempotency-Key", "k")

	assert.Equal(t, "ch_000001", chargeOf(t, first).ID)
	assert.Equal(t, "ch_000002", chargeOf(t, second).ID)
	assert.False(t, second.replayed())
	effects := s.Ledger().Effects()
	require.Len(t, effects, 2, "without idempotency support every POST charges")
	for _, e := range effects {
		assert.Equal(t, "k", e.Key, "the key the target sent is still recorded")
	}
}
