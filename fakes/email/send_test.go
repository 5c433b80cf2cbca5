package email_test

import (
	"net/http"
	"net/smtp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

func sendURL(s *email.Server) string { return s.URL() + "/v3/mail/send" }

func TestHTTPSendRecordsTheMessage(t *testing.T) {
	s := email.Start(t)
	r := do(t.Context(), newClient(t), http.MethodPost, sendURL(s), sendBody("cus_1@example.com", "order "+markerA), "Idempotency-Key", "k1")
	require.NoError(t, r.err)
	require.Equal(t, http.StatusAccepted, r.status, r.body)
	assert.Equal(t, "msg_000001", r.header.Get("X-Message-Id"))
	assert.Empty(t, r.body, "SendGrid answers 202 with no body")

	msgs := s.Messages()
	require.Len(t, msgs, 1)
	m := msgs[0]
	assert.Equal(t, "http", m.Via)
	assert.Equal(t, "shop@example.com", m.From)
	assert.Equal(t, []string{"cus_1@example.com"}, m.To)
	assert.Equal(t, "Your order", m.Subject)
	assert.Equal(t, "order "+markerA, m.Text)
	assert.Equal(t, "k1", m.Key)
	assert.Equal(t, []string{markerA}, m.Markers)

	effects := s.Ledger().Effects()
	require.Len(t, effects, 1)
	assert.Equal(t, "email", effects[0].Fake)
	assert.Equal(t, "message", effects[0].Kind)
	assert.Equal(t, "k1", effects[0].Key)
}

func TestHTTPIdempotency(t *testing.T) {
	s := email.Start(t)
	c := newClient(t)
	body := sendBody("cus_1@example.com", "order "+markerA)

	first := do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, first.status)
	assert.Empty(t, first.header.Get("Idempotent-Replayed"))

	again := do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k1")
	assert.Equal(t, http.StatusAccepted, again.status)
	assert.Equal(t, first.header.Get("X-Message-Id"), again.header.Get("X-Message-Id"), "a replay names the same message")
	assert.Equal(t, "true", again.header.Get("Idempotent-Replayed"))

	reordered := `{"subject":"Your order","from":{"email":"shop@example.com"},"content":[{"value":"order ` + markerA + `","type":"text/plain"}],"personalizations":[{"to":[{"email":"cus_1@example.com"}]}]}`
	same := do(t.Context(), c, http.MethodPost, sendURL(s), reordered, "Idempotency-Key", "k1")
	assert.Equal(t, "true", same.header.Get("Idempotent-Replayed"), "the body is compared as canonical JSON")

	other := do(t.Context(), c, http.MethodPost, sendURL(s), sendBody("cus_2@example.com", "x"), "Idempotency-Key", "k1")
	assert.Equal(t, http.StatusUnprocessableEntity, other.status, other.body)
	assert.Contains(t, other.body, "another request body")

	assert.Len(t, s.Ledger().Effects(), 1, "replays and rejections send nothing")

	keyless := do(t.Context(), c, http.MethodPost, sendURL(s), body)
	assert.Equal(t, http.StatusAccepted, keyless.status)
	assert.Len(t, s.Ledger().Effects(), 2, "without a key every send is a message")
}

func TestHTTPInFlightKeyGets409(t *testing.T) {
	s := email.Start(t)
	entered, release := holdFirstEffect(t, s.Ledger())
	body := sendBody("cus_1@example.com", markerA)
	first := make(chan result, 1)
	c := newClient(t)
	go func() { first <- do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k") }()
	recv(t, entered, "the first send to be recorded")

	dup := do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k")
	assert.Equal(t, http.StatusConflict, dup.status, dup.body)
	release()
	assert.Equal(t, http.StatusAccepted, recv(t, first, "the first send").status)
	assert.Len(t, s.Ledger().Effects(), 1)
}

func TestHTTPIgnoreIdempotencyKeys(t *testing.T) {
	s := email.Start(t, email.Options{IgnoreIdempotencyKeys: true})
	c := newClient(t)
	body := sendBody("cus_1@example.com", markerA)
	for range 2 {
		r := do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k")
		require.Equal(t, http.StatusAccepted, r.status)
		assert.Empty(t, r.header.Get("Idempotent-Replayed"))
	}
	assert.Len(t, s.Ledger().Effects(), 2)
}

func TestHTTPSendInvalid(t *testing.T) {
	tests := []struct{ name, body, field string }{
		{"not json", `hello`, ""},
		{"array", `[]`, ""},
		{"two objects", `{}{}`, ""},
		{"no personalizations", `{"from":{"email":"a@x"},"subject":"s","content":[{"type":"text/plain","value":"v"}]}`, "personalizations"},
		{"no recipient", `{"personalizations":[{"to":[]}],"from":{"email":"a@x"},"subject":"s","content":[{"type":"text/plain","value":"v"}]}`, "personalizations.0.to"},
		{"bad recipient", `{"personalizations":[{"to":[{"email":"nobody"}]}],"from":{"email":"a@x"},"subject":"s","content":[{"type":"text/plain","value":"v"}]}`, "personalizations.0.to.0.email"},
		{"no from", `{"personalizations":[{"to":[{"email":"b@x"}]}],"subject":"s","content":[{"type":"text/plain","value":"v"}]}`, "from.email"},
		{"no subject", `{"personalizations":[{"to":[{"email":"b@x"}]}],"from":{"email":"a@x"},"content":[{"type":"text/plain","value":"v"}]}`, "subject"},
		{"no content", `{"personalizations":[{"to":[{"email":"b@x"}]}],"from":{"email":"a@x"},"subject":"s"}`, "content"},
		{"empty content", `{"personalizations":[{"to":[{"email":"b@x"}]}],"from":{"email":"a@x"},"subject":"s","content":[{"type":"text/plain","value":""}]}`, "content.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := email.Start(t)
			r := do(t.Context(), newClient(t), http.MethodPost, sendURL(s), tt.body, "Idempotency-Key", "k")
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusBadRequest, r.status, r.body)
			assert.Contains(t, r.body, `"errors":[{"message":`)
			if tt.field != "" {
				assert.Contains(t, r.body, `"field":"`+tt.field+`"`)
			}
			assert.Empty(t, s.Ledger().Effects())
			ok := do(t.Context(), newClient(t), http.MethodPost, sendURL(s), sendBody("a@x", "v"), "Idempotency-Key", "k")
			assert.Equal(t, http.StatusAccepted, ok.status, "a rejected request does not hold its key")
		})
	}
}

func TestHTTPSubjectPerPersonalization(t *testing.T) {
	s := email.Start(t)
	body := `{"personalizations":[{"to":[{"email":"b@x"}],"subject":"per person"}],"from":{"email":"a@x"},"content":[{"type":"text/plain","value":"v"}]}`
	r := do(t.Context(), newClient(t), http.MethodPost, sendURL(s), body)
	require.Equal(t, http.StatusAccepted, r.status, r.body)
	assert.Equal(t, "per person", s.Messages()[0].Subject)
}

func TestHTTPFaults(t *testing.T) {
	tests := []struct {
		name     string
		action   fakes.Action
		status   int // 0: the connection was reset
		recorded int
	}{
		{"fail before", fakes.FailBefore, http.StatusServiceUnavailable, 0},
		{"fail after", fakes.FailAfter, http.StatusServiceUnavailable, 1},
		{"reset after", fakes.ResetAfter, 0, 1},
		{"temporary rejection", email.Reject(email.StageData, 451), http.StatusServiceUnavailable, 0},
		{"permanent rejection", email.Reject(email.StageData, 554), http.StatusBadRequest, 0},
		{"pass", fakes.Pass, http.StatusAccepted, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := email.Start(t)
			c := newClient(t)
			s.Arm(fakes.Rule{Marker: markerA, Action: tt.action})
			body := sendBody("cus_1@example.com", markerA)
			r := do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k")
			if tt.status == 0 {
				require.Error(t, r.err)
			} else {
				require.NoError(t, r.err)
				assert.Equal(t, tt.status, r.status, r.body)
			}
			assert.Len(t, s.Ledger().Effects(), tt.recorded)

			retry := do(t.Context(), c, http.MethodPost, sendURL(s), body, "Idempotency-Key", "k")
			assert.Equal(t, http.StatusAccepted, retry.status, retry.body)
			assert.Len(t, s.Ledger().Effects(), 1, "a retry with the key sends the message at most once")
		})
	}
}

func TestEnvelopeRejectionsDoNotApplyToHTTP(t *testing.T) {
	s := email.Start(t)
	s.Arm(fakes.Rule{Action: email.Reject(email.StageRcpt, 550)})
	r := do(t.Context(), newClient(t), http.MethodPost, sendURL(s), sendBody("a@x", "v"))
	assert.Equal(t, http.StatusAccepted, r.status)
	err := smtp.SendMail(s.SMTPAddr(), nil, "a@x", []string{"b@x"}, mail("hi", "x"))
	assert.Equal(t, 550, smtpCode(err), "the RCPT rule was still armed for SMTP")
}

func TestBothDoorsShareOneLedger(t *testing.T) {
	l := fakes.NewLedger()
	s := email.Start(t, email.Options{Ledger: l})
	require.NoError(t, sendMail(s.SMTPAddr(), mail("hi", markerA)))
	r := do(t.Context(), newClient(t), http.MethodPost, sendURL(s), sendBody("a@x", markerA))
	require.Equal(t, http.StatusAccepted, r.status)
	assert.Same(t, l, s.Ledger())
	effects := l.ByMarker(markerA)
	require.Len(t, effects, 2)
	assert.Equal(t, []string{"msg_000001", "msg_000002"}, []string{effects[0].ID, effects[1].ID})
	assert.Equal(t, "smtp", effects[0].Detail["via"])
	assert.Equal(t, "http", effects[1].Detail["via"])
}

func TestNewRefusesNonLoopback(t *testing.T) {
	for _, o := range []email.Options{{Addr: "0.0.0.0:0"}, {SMTPAddr: "0.0.0.0:0"}, {Addr: "nonsense"}} {
		_, err := email.New(o)
		assert.Error(t, err, "%+v", o)
	}
}
