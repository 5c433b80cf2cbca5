package email_test

import (
	"net"
	"net/smtp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

func TestSMTPSendRecordsTheMessage(t *testing.T) {
	s := email.Start(t)
	msg := mail("Order confirmed", "Thanks for order "+markerA, "Message-ID: <m1@shop.example>")
	require.NoError(t, sendMail(s.SMTPAddr(), msg))

	got := s.Messages()
	require.Len(t, got, 1)
	m := got[0]
	assert.Equal(t, "msg_000001", m.ID)
	assert.Equal(t, "smtp", m.Via)
	assert.Equal(t, "shop@example.com", m.From)
	assert.Equal(t, []string{"cus_1@example.com"}, m.To)
	assert.Equal(t, "Order confirmed", m.Subject)
	assert.Contains(t, m.Text, "Thanks for order "+markerA)
	assert.Equal(t, "m1@shop.example", m.MessageID)
	assert.Equal(t, "m1@shop.example", m.Key, "without an idempotency header the Message-ID is the key")
	assert.Equal(t, []string{markerA}, m.Markers)
	assert.False(t, m.Received.IsZero())

	effects := s.Ledger().Effects()
	require.Len(t, effects, 1)
	e := effects[0]
	assert.Equal(t, "email", e.Fake)
	assert.Equal(t, "message", e.Kind)
	assert.Equal(t, "msg_000001", e.ID)
	assert.Equal(t, []string{markerA}, e.Markers)
	assert.Equal(t, "m1@shop.example", e.Key)
	assert.Equal(t, map[string]string{"via": "smtp", "from": "shop@example.com", "to": "cus_1@example.com",
		"subject": "Order confirmed", "message_id": "m1@shop.example"}, e.Detail)
}

func TestSMTPMarkersAnywhere(t *testing.T) {
	tests := []struct {
		name, why string
		to        string
		msg       []byte
	}{
		{"body", "the usual place: the text the sender forwards", "cus_1@example.com", mail("hi", "ref "+markerA)},
		{"subject", "headers are part of the message", "cus_1@example.com", mail("order "+markerA, "hi")},
		{"recipient", "the envelope counts too", markerA + "@example.com", mail("hi", "hi")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := email.Start(t)
			require.NoError(t, smtp.SendMail(s.SMTPAddr(), nil, "shop@example.com", []string{tt.to}, tt.msg))
			assert.Len(t, s.Ledger().ByMarker(markerA), 1, tt.why)
		})
	}
}

func TestSMTPAuthPlainAcceptsAnyCredentials(t *testing.T) {
	s := email.Start(t)
	host, _, err := net.SplitHostPort(s.SMTPAddr())
	require.NoError(t, err)
	auth := smtp.PlainAuth("", "apikey", "secret", host)
	require.NoError(t, smtp.SendMail(s.SMTPAddr(), auth, "shop@example.com", []string{"a@example.com"}, mail("hi", markerA)))
	require.Len(t, s.Messages(), 1)
	assert.NotContains(t, s.Messages()[0].Raw, "secret", "credentials are not kept")
}

func TestSMTPIdempotencyHeaderIsTheKey(t *testing.T) {
	s := email.Start(t)
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA, "Message-ID: <m1@x>", "X-Idempotency-Key: order-7")))
	assert.Equal(t, "order-7", s.Ledger().Effects()[0].Key)
}

func TestSMTPFaults(t *testing.T) {
	tests := []struct {
		name     string
		why      string
		action   fakes.Action
		code     int // of the client's error; 0: the connection was dropped
		recorded int
	}{
		{"fail before", "a clean temporary failure at DATA", fakes.FailBefore, 451, 0},
		{"fail after", "stored, then a temporary failure: the sender believes it failed", fakes.FailAfter, 451, 1},
		{"reset after", "stored, then the connection drops before the 250", fakes.ResetAfter, 0, 1},
		{"reject mail", "a permanent refusal of the sender", email.Reject(email.StageMail, 550), 550, 0},
		{"reject rcpt temporarily", "a greylisting-style refusal of a recipient", email.Reject(email.StageRcpt, 451), 451, 0},
		{"reject data", "the message is refused after DATA", email.Reject(email.StageData, 554), 554, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := email.Start(t)
			s.Arm(fakes.Rule{Action: tt.action})
			err := sendMail(s.SMTPAddr(), mail("hi", "order "+markerA))
			require.Error(t, err, tt.why)
			assert.Equal(t, tt.code, smtpCode(err), "%s: %v", tt.why, err)
			assert.Len(t, s.Ledger().Effects(), tt.recorded, tt.why)

			require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", "order "+markerA)), "the rule was used up")
			assert.Len(t, s.Ledger().Effects(), tt.recorded+1)
		})
	}
}

func TestSMTPEnvelopeRulesMatchTheEnvelopeOnly(t *testing.T) {
	s := email.Start(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: email.Reject(email.StageRcpt, 550)})

	// The marker is only in the body: a RCPT rule cannot see it.
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	err := smtp.SendMail(s.SMTPAddr(), nil, "shop@example.com", []string{"ok@example.com", markerA + "@example.com"}, mail("hi", "x"))
	assert.Equal(t, 550, smtpCode(err), "%v", err)
	assert.Len(t, s.Ledger().Effects(), 1)
}

func TestSMTPStandardRuleMatchesByMarker(t *testing.T) {
	s := email.Start(t)
	s.Arm(fakes.Rule{Marker: markerA, Times: 2, Action: fakes.FailBefore})
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerB)), "another marker is not affected")
	for range 2 {
		assert.Equal(t, 451, smtpCode(sendMail(s.SMTPAddr(), mail("hi", markerA))))
	}
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	assert.Len(t, s.Ledger().ByMarker(markerA), 1)
	assert.Len(t, s.Ledger().ByMarker(markerB), 1)
}

func TestSMTPOnMatchRunsBeforeTheReply(t *testing.T) {
	s := email.Start(t)
	atMatch := make(chan int, 1)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.Pass, OnMatch: func() { atMatch <- len(s.Ledger().Effects()) }})
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	assert.Equal(t, 0, recv(t, atMatch, "OnMatch"), "OnMatch ran before the message was recorded")
	assert.Len(t, s.Ledger().Effects(), 1)
}

// Over SMTP an AwaitCaller rule has no caller to wait for: the message is
// accepted at once, Rule.OnRelease called before it is recorded.
func TestSMTPAwaitCallerPassesAtOnce(t *testing.T) {
	s := email.Start(t)
	atRelease := make(chan int, 1)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.AwaitCaller, Delay: time.Hour,
		OnRelease: func() { atRelease <- len(s.Ledger().Effects()) }})
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	assert.Equal(t, 0, recv(t, atRelease, "OnRelease"), "OnRelease ran before the message was recorded")
	assert.Len(t, s.Ledger().Effects(), 1)
}

// A server closed right after it started ends: go-smtp registers its
// listener only once Serve runs, which may be after Shutdown looked.
func TestCloseRightAfterNewEnds(t *testing.T) {
	for range 200 {
		s, err := email.New(email.Options{})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- s.Close() }()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Fatal("Close did not return")
		}
	}
}
