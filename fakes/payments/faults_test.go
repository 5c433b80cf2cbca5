package payments_test

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

// injected checks the reply to a request a FailBefore or FailAfter rule hit.
func injected(t *testing.T, r result) {
	t.Helper()
	e := errorOf(t, r, http.StatusServiceUnavailable)
	assert.Equal(t, "api_error", e.Error.Type)
	assert.Equal(t, "injected: service unavailable", e.Error.Message)
}

func TestFailBefore(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailBefore})
	body := form("amount", "100", "description", markerA)

	injected(t, post(t, c, s, formType, body, "Idempotency-Key", "k"))
	assert.Empty(t, s.Ledger().Effects(), "FailBefore charges nothing")

	retry := post(t, c, s, formType, body, "Idempotency-Key", "k")
	assert.Equal(t, "ch_000001", chargeOf(t, retry).ID, "the key was released, so the retry charges")
	assert.False(t, retry.replayed())
	assert.Len(t, s.Ledger().ByMarker(markerA), 1)
}

func TestFailAfter(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailAfter})
	body := form("amount", "100", "description", markerA)

	injected(t, post(t, c, s, formType, body, "Idempotency-Key", "k"))
	effects := s.Ledger().ByMarker(markerA)
	require.Len(t, effects, 1, "FailAfter charges, then fails")
	assert.Equal(t, "ch_000001", effects[0].ID)

	retry := post(t, c, s, formType, body, "Idempotency-Key", "k")
	assert.True(t, retry.replayed(), "the stored result is the successful charge")
	assert.Equal(t, "ch_000001", chargeOf(t, retry).ID)
	assert.Len(t, s.Ledger().Effects(), 1, "a retry with the key does not charge again")
}

func TestFailAfterWithoutKeyDoubleCharges(t *testing.T) {
	// This is the bug idemcheck exists to find: a target that retries
	// without a key after an ambiguous failure charges twice.
	s := payments.Start(t)
	c := newClient(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailAfter})
	body := form("amount", "100", "description", markerA)

	injected(t, post(t, c, s, formType, body))
	chargeOf(t, post(t, c, s, formType, body))
	assert.Len(t, s.Ledger().ByMarker(markerA), 2)
}

func TestResetAfter(t *testing.T) {
	s := payments.Start(t)
	// A fresh connection per request: Go's Transport would otherwise retry
	// a keyed request on a reused connection by itself.
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr, Timeout: waitLimit}
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.ResetAfter})
	body := form("amount", "100", "description", markerA)

	r := send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, body, "Idempotency-Key", "k")
	require.Error(t, r.err, "the client gets no reply")
	assert.Len(t, s.Ledger().ByMarker(markerA), 1, "the charge happened all the same")

	retry := post(t, c, s, formType, body, "Idempotency-Key", "k")
	assert.True(t, retry.replayed())
	assert.Equal(t, "ch_000001", chargeOf(t, retry).ID)
	assert.Len(t, s.Ledger().Effects(), 1)
}

func TestDelay(t *testing.T) {
	s := payments.Start(t)
	s.Arm(fakes.Rule{Action: fakes.Delay, Delay: time.Millisecond})
	r := post(t, newClient(t), s, formType, form("amount", "100"))
	assert.Equal(t, "ch_000001", chargeOf(t, r).ID, "after the delay the request is handled normally")
	assert.Len(t, s.Ledger().Effects(), 1)
}

// sendWritten starts a request in a goroutine and returns once the client
// has written all of it, with a channel for the result.
func sendWritten(t *testing.T, ctx context.Context, s *payments.Server, body string) <-chan result {
	t.Helper()
	written := make(chan struct{})
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { close(written) },
	})
	done := make(chan result, 1)
	c := newClient(t)
	go func() {
		done <- send(ctx, c, http.MethodPost, s.URL()+"/v1/charges", formType, body)
	}()
	recv(t, written, "the request to be written")
	return done
}

func TestDelayClientGivesUp(t *testing.T) {
	s := payments.Start(t)
	s.Arm(fakes.Rule{Action: fakes.Delay, Delay: time.Hour})

	ctx, cancel := context.WithCancel(t.Context())
	done := sendWritten(t, ctx, s, form("amount", "100"))
	cancel()
	require.Error(t, recv(t, done, "the cancelled request").err)

	// Close waits for the handler, so the ledger is final afterwards; had
	// the delay not watched the request's context, Close would time out.
	require.NoError(t, s.Close())
	assert.Empty(t, s.Ledger().Effects(), "a request abandoned during its delay charges nothing")
}

func TestDelayCutShortByClose(t *testing.T) {
	s := payments.Start(t)
	s.Arm(fakes.Rule{Action: fakes.Delay, Delay: time.Hour})
	done := sendWritten(t, t.Context(), s, form("amount", "100"))

	require.NoError(t, s.Close(), "Close does not wait out an injected delay")
	r := recv(t, done, "the delayed request")
	if r.err == nil { // else the server closed before it read the request
		errorOf(t, r, http.StatusServiceUnavailable)
	}
	assert.Empty(t, s.Ledger().Effects())
}

func TestRuleMatching(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	s.Arm(fakes.Rule{Marker: markerA, Times: 2, Action: fakes.FailBefore})
	withA := form("amount", "100", "description", markerA)

	chargeOf(t, post(t, c, s, formType, form("amount", "100", "description", markerB)))
	chargeOf(t, post(t, c, s, formType, form("amount", "100")))
	injected(t, post(t, c, s, formType, withA))
	injected(t, post(t, c, s, formType, withA))
	chargeOf(t, post(t, c, s, formType, withA))

	assert.Len(t, s.Ledger().ByMarker(markerA), 1, "the rule fired twice, then was used up")
	assert.Len(t, s.Ledger().ByMarker(markerB), 1, "a rule for one marker leaves others alone")
}

func TestRuleWithoutMarkerMatchesAll(t *testing.T) {
	s := payments.Start(t)
	s.Arm(fakes.Rule{Action: fakes.FailBefore})
	injected(t, post(t, newClient(t), s, formType, form("amount", "100")))
}

func TestDisarm(t *testing.T) {
	s := payments.Start(t)
	s.Arm(fakes.Rule{Action: fakes.FailBefore, Times: 5})
	s.Disarm()
	chargeOf(t, post(t, newClient(t), s, formType, form("amount", "100")))
}
