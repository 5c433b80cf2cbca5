package payments_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

// TestAChargeMadeAfterItsCallerHungUpIsUnanswered: a charge whose caller
// gave up on the call before the fake answered it (here the fake holds the
// call until the caller leaves, then charges all the same) is marked
// Unanswered in the ledger, so that no check holds the caller to knowing
// of it; a charge answered to its caller is not. Rule.OnRelease is called
// when the hold ends, before the charge.
func TestAChargeMadeAfterItsCallerHungUpIsUnanswered(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	recorded := make(chan fakes.Effect, 4)
	defer s.Ledger().Observe(func(e fakes.Effect) { recorded <- e })()

	answered := post(t, c, s, formType, form("amount", "100", "description", markerB), "Idempotency-Key", "k-answered")
	require.Equal(t, http.StatusOK, answered.status)

	held := make(chan struct{})
	// The hold ends before the charge is made, and says so.
	released := make(chan int, 1)
	s.Arm(fakes.Rule{Marker: markerA, Times: 1, Action: fakes.AwaitCaller, Delay: waitLimit, OnMatch: func() { close(held) },
		OnRelease: func() { released <- len(s.Ledger().Effects()) }})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan result, 1)
	go func() {
		done <- send(ctx, c, http.MethodPost, s.URL()+"/v1/charges", formType, form("amount", "100", "description", markerA), "Idempotency-Key", "k-gone")
	}()
	first := <-recorded // the answered charge
	select {
	case <-held:
	case <-time.After(waitLimit):
		t.Fatal("the fake never held the call")
	}
	cancel() // the caller gives up while the fake holds its call
	select {
	case r := <-done:
		require.Error(t, r.err, "the caller gave up before a reply")
	case <-time.After(waitLimit):
		t.Fatal("the caller did not give up")
	}
	select {
	case <-recorded:
	case <-time.After(waitLimit):
		t.Fatal("the fake did not charge after its caller left")
	}
	select {
	case n := <-released:
		assert.Equal(t, 1, n, "released before the charge")
	default:
		t.Fatal("the fake charged without saying the hold was over")
	}
	// The mark follows the charge's record: the fake sees that its caller
	// left only once the charge is made.
	require.Eventually(t, func() bool {
		effects := s.Ledger().Effects()
		return len(effects) == 2 && effects[1].Unanswered
	}, waitLimit, time.Millisecond, "its caller had hung up before the fake answered")
	effects := s.Ledger().Effects()
	assert.Equal(t, first.ID, effects[0].ID)
	assert.False(t, effects[0].Unanswered, "its caller read the reply")
}

// TestAChargeWhoseReplyWasLeftUnreadIsUnanswered: a caller that closes
// its connection with the fake's reply still unread in it (its own timer
// fired first) resets the connection, and the charge that reply reported
// is marked Unanswered; a caller that read its reply and then closed is
// not.
func TestAChargeWhoseReplyWasLeftUnreadIsUnanswered(t *testing.T) {
	s := payments.Start(t)
	charge := func(marker, key string, readAll bool) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL(), "http://"), waitLimit)
		require.NoError(t, err)
		body := form("amount", "100", "description", marker)
		_, err = fmt.Fprintf(c, "POST /v1/charges HTTP/1.1\r\nHost: fake\r\nContent-Type: %s\r\nIdempotency-Key: %s\r\nContent-Length: %d\r\n\r\n%s", formType, key, len(body), body)
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(waitLimit)))
		if readAll {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			require.NoError(t, err)
			_, err = io.Copy(io.Discard, resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
		} else {
			// The reply has come: one byte of it is read, the rest is
			// left in the connection as it closes.
			_, err := io.ReadFull(c, make([]byte, 1))
			require.NoError(t, err)
		}
		require.NoError(t, c.Close())
	}
	charge(markerB, "k-read", true)
	charge(markerA, "k-unread", false)
	require.Eventually(t, func() bool {
		effects := s.Ledger().Effects()
		return len(effects) == 2 && effects[1].Unanswered
	}, waitLimit, time.Millisecond, "the reset after the unread reply marks its charge")
	effects := s.Ledger().Effects()
	assert.False(t, effects[0].Unanswered, "its caller read the reply before it closed")
}
