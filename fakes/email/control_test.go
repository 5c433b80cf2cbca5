package email_test

import (
	"encoding/json"
	"net/http"
	"net/smtp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

func TestControlLedgerAndMessages(t *testing.T) {
	s := email.Start(t, withControl)
	c := newClient(t)
	empty := do(t.Context(), c, http.MethodGet, s.ControlURL()+"/_idemcheck/ledger", "")
	require.Equal(t, http.StatusOK, empty.status)
	assert.JSONEq(t, `[]`, empty.body)
	assert.JSONEq(t, `{"messages":[]}`, do(t.Context(), c, http.MethodGet, s.URL()+"/v3/messages", "").body)

	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	require.Equal(t, http.StatusAccepted, do(t.Context(), c, http.MethodPost, sendURL(s), sendBody("other@example.com", "x")).status)

	var effects []fakes.Effect
	require.NoError(t, json.Unmarshal([]byte(do(t.Context(), c, http.MethodGet, s.ControlURL()+"/_idemcheck/ledger", "").body), &effects))
	assert.Len(t, effects, 2)

	var list struct{ Messages []email.Message }
	require.NoError(t, json.Unmarshal([]byte(do(t.Context(), c, http.MethodGet, s.URL()+"/v3/messages?to=other@example.com", "").body), &list))
	require.Len(t, list.Messages, 1)
	assert.Equal(t, "msg_000002", list.Messages[0].ID)
}

func TestControlRules(t *testing.T) {
	s := email.Start(t, withControl)
	c := newClient(t)
	arm := func(body string) result {
		r := do(t.Context(), c, http.MethodPost, s.ControlURL()+"/_idemcheck/rules", body)
		require.NoError(t, r.err)
		return r
	}
	assert.Equal(t, http.StatusNoContent, arm(`{"action":"smtp-rcpt-550","times":1}`).status)
	assert.Equal(t, 550, smtpCode(sendMail(s.SMTPAddr(), mail("hi", "x"))))

	assert.Equal(t, http.StatusNoContent, arm(`{"marker":"`+markerA+`","action":"reset-after"}`).status)
	assert.Equal(t, 0, smtpCode(sendMail(s.SMTPAddr(), mail("hi", markerA))))
	assert.Len(t, s.Ledger().Effects(), 1)

	for _, bad := range []string{`{"action":"explode"}`, `{"action":"smtp-helo-550"}`, `{"action":"smtp-data-250"}`, `{"action":"fail-before","times":-1}`, `nope`} {
		r := arm(bad)
		assert.Equal(t, http.StatusBadRequest, r.status, bad)
		assert.Contains(t, r.body, "invalid rule", bad)
	}

	assert.Equal(t, http.StatusNoContent, arm(`{"action":"fail-before","times":5}`).status)
	assert.Equal(t, http.StatusNoContent, do(t.Context(), c, http.MethodDelete, s.ControlURL()+"/_idemcheck/rules", "").status)
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", "x")), "disarmed")
}

// withControl starts the fake with its control API on a free port.
var withControl = email.Options{ControlAddr: "127.0.0.1:0"}

// TestSenderCannotDisarmFaults: the HTTP API a target is given answers 404
// to every control request, so the fault armed for the target's message
// still fires; SMTP has no such door at all.
func TestSenderCannotDisarmFaults(t *testing.T) {
	s := email.Start(t, withControl)
	c := newClient(t)
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailBefore})
	for _, m := range []string{http.MethodDelete, http.MethodPost, http.MethodGet} {
		r := do(t.Context(), c, m, s.URL()+"/_idemcheck/rules", `{"action":"pass"}`)
		require.NoError(t, r.err)
		assert.Equal(t, http.StatusNotFound, r.status, m)
	}
	assert.Equal(t, http.StatusServiceUnavailable, do(t.Context(), c, http.MethodPost, sendURL(s), sendBody("a@example.com", markerA)).status, "the fault fired")
	assert.Equal(t, 1, s.Fired(markerA))

	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailBefore})
	assert.Equal(t, http.StatusNoContent, do(t.Context(), c, http.MethodDelete, s.ControlURL()+"/_idemcheck/rules", "").status)
	assert.Equal(t, http.StatusAccepted, do(t.Context(), c, http.MethodPost, sendURL(s), sendBody("a@example.com", markerA)).status, "disarmed through the control API")
	assert.Equal(t, 1, s.Fired(markerA), "the disarmed rule never fired")
}

func TestFiredCountsEveryDoor(t *testing.T) {
	s := email.Start(t)
	// The RCPT stage sees the envelope's markers only: the recipient's.
	rcpt := markerA + "@example.com"
	s.Arm(fakes.Rule{Marker: markerA, Action: "smtp-rcpt-550"})
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.Pass})
	assert.Equal(t, 0, s.Fired(markerA))
	assert.Equal(t, 550, smtpCode(smtp.SendMail(s.SMTPAddr(), nil, "shop@example.com", []string{rcpt}, mail("hi", "x"))))
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	assert.Equal(t, 2, s.Fired(markerA), "the RCPT rejection and the DATA pass")
	n, known := fakes.FiredAt(s, markerA)
	assert.True(t, known)
	assert.Equal(t, 2, n)
}

func TestNotFound(t *testing.T) {
	s := email.Start(t)
	r := do(t.Context(), newClient(t), http.MethodGet, s.URL()+"/v3/mail/send", "")
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Contains(t, r.body, "POST /v3/mail/send")
}

func TestParseReject(t *testing.T) {
	for _, tt := range []struct {
		action fakes.Action
		stage  email.Stage
		code   int
		ok     bool
	}{
		{email.Reject(email.StageMail, 421), email.StageMail, 421, true},
		{"smtp-rcpt-550", email.StageRcpt, 550, true},
		{"smtp-data-599", email.StageData, 599, true},
		{"smtp-data-250", "", 0, false},
		{"smtp-data-0451", "", 0, false},
		{"smtp-helo-550", "", 0, false},
		{"fail-before", "", 0, false},
	} {
		stage, code, ok := email.ParseReject(tt.action)
		assert.Equal(t, tt.ok, ok, tt.action)
		assert.Equal(t, tt.stage, stage, tt.action)
		assert.Equal(t, tt.code, code, tt.action)
	}
}

func FuzzParseReject(f *testing.F) {
	for _, s := range []string{"smtp-data-451", "smtp-rcpt-550", "smtp--", "smtp-mail-+451", "fail-after"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stage, code, ok := email.ParseReject(fakes.Action(s))
		if ok && email.Reject(stage, code) != fakes.Action(s) {
			t.Fatalf("%q parses as (%s, %d), which makes %q", s, stage, code, email.Reject(stage, code))
		}
	})
}
