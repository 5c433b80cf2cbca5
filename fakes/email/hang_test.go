package email_test

import (
	"net"
	"net/smtp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

// startHeldSend sends a message on a connection the test controls and
// returns once the fake has matched the rule, with the connection and a
// channel for the client's result.
func startHeldSend(t *testing.T, s *email.Server, matched <-chan struct{}) (net.Conn, <-chan error) {
	t.Helper()
	conn, err := net.Dial("tcp", s.SMTPAddr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	done := make(chan error, 1)
	go func() {
		c, err := smtp.NewClient(conn, "localhost")
		if err == nil {
			err = c.Mail("shop@example.com")
		}
		if err == nil {
			err = c.Rcpt("cus_1@example.com")
		}
		if err == nil {
			w, derr := c.Data()
			if derr != nil {
				err = derr
			} else if _, err = w.Write(mail("hi", markerA)); err == nil {
				err = w.Close() // waits for the reply to DATA
			}
		}
		done <- err
	}()
	recv(t, matched, "the rule to match")
	return conn, done
}

func TestSMTPHangHoldsUntilTheSenderGivesUp(t *testing.T) {
	for _, tt := range []struct {
		action   fakes.Action
		recorded int
	}{{fakes.Hang, 0}, {fakes.HangAfter, 1}} {
		t.Run(string(tt.action), func(t *testing.T) {
			s := email.Start(t)
			matched := make(chan struct{})
			s.Arm(fakes.Rule{Marker: markerA, Action: tt.action, OnMatch: func() { close(matched) }})
			conn, done := startHeldSend(t, s, matched)

			require.NoError(t, conn.Close(), "the sender gives up")
			require.Error(t, recv(t, done, "the held send"))
			require.NoError(t, s.Close(), "nothing is left hanging")
			assert.Len(t, s.Ledger().Effects(), tt.recorded)
		})
	}
}

func TestSMTPCloseEndsAHang(t *testing.T) {
	s := email.Start(t)
	matched := make(chan struct{})
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.Hang, OnMatch: func() { close(matched) }})
	_, done := startHeldSend(t, s, matched)

	require.NoError(t, s.Close(), "Close does not wait out a hang")
	require.Error(t, recv(t, done, "the held send"), "the sender sees the connection drop")
	assert.Empty(t, s.Ledger().Effects())
}

func TestSMTPCloseCutsIdleSessionsAndIsIdempotent(t *testing.T) {
	s := email.Start(t)
	c, err := smtp.Dial(s.SMTPAddr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Hello("localhost"))

	require.NoError(t, s.Close(), "an idle session does not hold Close up")
	require.NoError(t, s.Close())
	assert.Error(t, c.Noop(), "the idle session was cut")
	_, err = net.Dial("tcp", s.SMTPAddr())
	assert.Error(t, err, "nothing listens any more")
}

func TestSMTPCloseWaitsForAMessageInFlight(t *testing.T) {
	s := email.Start(t)
	entered, release := holdFirstEffect(t, s.Ledger())
	c, err := smtp.Dial(s.SMTPAddr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Mail("shop@example.com"))
	require.NoError(t, c.Rcpt("cus_1@example.com"))
	w, err := c.Data()
	require.NoError(t, err)
	_, err = w.Write(mail("hi", markerA))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- w.Close() }() // the end of DATA, then the reply
	recv(t, entered, "the message to be recorded")

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	release()
	require.NoError(t, recv(t, done, "the reply to DATA"), "the message in flight was answered 250")
	require.NoError(t, recv(t, closed, "Close"))
	assert.Len(t, s.Ledger().Effects(), 1)
	assert.Error(t, c.Noop(), "then the session was ended")
}
