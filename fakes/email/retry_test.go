package email_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

// retryingSend is what a naive sender does: send, and on any error send
// the same message again, up to attempts times.
func retryingSend(addr string, msg []byte, attempts int) (errs []error) {
	for range attempts {
		err := sendMail(addr, msg)
		if err == nil {
			return errs
		}
		errs = append(errs, err)
	}
	return errs
}

// The point of the dropped-250 fault: the message is stored, the sender
// never hears so, and its retry sends the message a second time.
func TestDroppedReplyNaiveRetrySendsTwice(t *testing.T) {
	s := email.Start(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.ResetAfter})

	errs := retryingSend(s.SMTPAddr(), mail("Order confirmed", "order "+markerA), 3)
	require.Len(t, errs, 1, "the first try failed, the retry succeeded")
	assert.Zero(t, smtpCode(errs[0]), "no SMTP reply at all, only a dropped connection: %v", errs[0])

	msgs := s.Messages()
	require.Len(t, msgs, 2, "the customer got the email twice")
	assert.Len(t, s.Ledger().ByMarker(markerA), 2)
}

// SMTP has no idempotency: a sender that marks its retries with the same
// Message-ID or X-Idempotency-Key still sends twice; the ledger shows the
// same key on both, which is how a report tells "not de-duplicated
// downstream" from "a new key on every try".
func TestDroppedReplyRetryWithTheSameKeyStillSendsTwice(t *testing.T) {
	for _, hdr := range []string{"Message-ID: <order-7@shop.example>", "X-Idempotency-Key: order-7@shop.example"} {
		t.Run(hdr, func(t *testing.T) {
			s := email.Start(t)
			s.Arm(fakes.Rule{Marker: markerA, Action: fakes.ResetAfter})
			errs := retryingSend(s.SMTPAddr(), mail("Order confirmed", "order "+markerA, hdr), 3)
			require.Len(t, errs, 1)

			effects := s.Ledger().ByMarker(markerA)
			require.Len(t, effects, 2, "real SMTP servers do not de-duplicate, nor does the fake")
			assert.Equal(t, "order-7@shop.example", effects[0].Key)
			assert.Equal(t, effects[0].Key, effects[1].Key)
		})
	}
}

// A careful sender over SMTP keeps its own record: it does not resend a
// message it may have sent; the fake records it once.
func TestFailAfterMakesACarefulSenderLoseNothing(t *testing.T) {
	s := email.Start(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailAfter})
	err := sendMail(s.SMTPAddr(), mail("hi", markerA))
	assert.Equal(t, 451, smtpCode(err), "the sender is told to try later, though the message was stored")
	assert.Len(t, s.Ledger().ByMarker(markerA), 1)
}
