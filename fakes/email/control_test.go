package email_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

func TestControlLedgerAndMessages(t *testing.T) {
	s := email.Start(t)
	c := newClient(t)
	empty := do(t.Context(), c, http.MethodGet, s.URL()+"/_idemcheck/ledger", "")
	require.Equal(t, http.StatusOK, empty.status)
	assert.JSONEq(t, `[]`, empty.body)
	assert.JSONEq(t, `{"messages":[]}`, do(t.Context(), c, http.MethodGet, s.URL()+"/v3/messages", "").body)

	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	require.Equal(t, http.StatusAccepted, do(t.Context(), c, http.MethodPost, sendURL(s), sendBody("other@example.com", "x")).status)

	var effects []fakes.Effect
	require.NoError(t, json.Unmarshal([]byte(do(t.Context(), c, http.MethodGet, s.URL()+"/_idemcheck/ledger", "").body), &effects))
	assert.Len(t, effects, 2)

	var list struct{ Messages []email.Message }
	require.NoError(t, json.Unmarshal([]byte(do(t.Context(), c, http.MethodGet, s.URL()+"/v3/messages?to=other@example.com", "").body), &list))
	require.Len(t, list.Messages, 1)
	assert.Equal(t, "msg_000002", list.Messages[0].ID)
}

func TestControlRules(t *testing.T) {
	s := email.Start(t)
	c := newClient(t)
	arm := func(body string) result {
		r := do(t.Context(), c, http.MethodPost, s.URL()+"/_idemcheck/rules", body)
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
	assert.Equal(t, http.StatusNoContent, do(t.Context(), c, http.MethodDelete, s.URL()+"/_idemcheck/rules", "").status)
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", "x")), "disarmed")
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
