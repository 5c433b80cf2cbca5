package payments_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

func TestControlLedger(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)

	empty := get(t, c, s.URL()+"/_idemcheck/ledger")
	require.Equal(t, http.StatusOK, empty.status)
	assert.Equal(t, "application/json", empty.header.Get("Content-Type"))
	assert.JSONEq(t, `[]`, string(empty.body), "an empty ledger is [], not null")

	chargeOf(t, post(t, c, s, formType, form("amount", "100", "description", markerA), "Idempotency-Key", "k"))
	r := get(t, c, s.URL()+"/_idemcheck/ledger")
	require.Equal(t, http.StatusOK, r.status)
	var effects []fakes.Effect
	require.NoError(t, json.Unmarshal(r.body, &effects))
	want := s.Ledger().Effects()
	require.Len(t, effects, 1)
	assert.True(t, want[0].At.Equal(effects[0].At))
	effects[0].At = want[0].At // compared apart: JSON drops the monotonic clock
	assert.Equal(t, want, effects)
}

func TestControlRules(t *testing.T) {
	tests := []struct {
		name string
		rule string
		want int // status of the marked charge
	}{
		{"fail before", `{"marker":"` + markerA + `","action":"fail-before"}`, http.StatusServiceUnavailable},
		{"fail after", `{"marker":"` + markerA + `","times":1,"action":"fail-after"}`, http.StatusServiceUnavailable},
		{"delay as nanoseconds", `{"marker":"` + markerA + `","action":"delay","delay":1000}`, http.StatusOK},
		{"delay as string", `{"marker":"` + markerA + `","action":"delay","delay":"1ms"}`, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := payments.Start(t)
			c := newClient(t)
			r := send(t.Context(), c, http.MethodPost, s.URL()+"/_idemcheck/rules", jsonType, tt.rule)
			require.NoError(t, r.err)
			require.Equal(t, http.StatusNoContent, r.status, "body: %s", r.body)

			unmarked := post(t, c, s, formType, form("amount", "100"))
			assert.Equal(t, http.StatusOK, unmarked.status, "the rule is for markerA only")
			marked := post(t, c, s, formType, form("amount", "100", "description", markerA))
			assert.Equal(t, tt.want, marked.status, "body: %s", marked.body)
		})
	}
}

func TestControlRulesFromEncodedRule(t *testing.T) {
	// What a harness in another process sends: a fakes.Rule as encoded by
	// encoding/json.
	s := payments.Start(t)
	c := newClient(t)
	b, err := json.Marshal(fakes.Rule{Marker: markerA, Times: 2, Action: fakes.FailBefore})
	require.NoError(t, err)
	r := send(t.Context(), c, http.MethodPost, s.URL()+"/_idemcheck/rules", jsonType, string(b))
	require.NoError(t, r.err)
	require.Equal(t, http.StatusNoContent, r.status, "body: %s", r.body)

	body := form("amount", "100", "description", markerA)
	assert.Equal(t, http.StatusServiceUnavailable, post(t, c, s, formType, body).status)
	assert.Equal(t, http.StatusServiceUnavailable, post(t, c, s, formType, body).status)
	assert.Equal(t, http.StatusOK, post(t, c, s, formType, body).status)
}

func TestControlRulesInvalid(t *testing.T) {
	tests := []struct{ name, body, mention string }{
		{"unknown action", `{"action":"explode"}`, "explode"},
		{"missing action", `{"marker":"` + markerA + `"}`, "action"},
		{"misspelt field", `{"actoin":"fail-before"}`, "actoin"},
		{"negative times", `{"action":"fail-before","times":-1}`, "times"},
		{"bad delay string", `{"action":"delay","delay":"soon"}`, "delay"},
		{"bad delay type", `{"action":"delay","delay":true}`, "delay"},
		{"negative delay", `{"action":"delay","delay":"-1s"}`, "negative"},
		{"not json", `fail-before`, "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := payments.Start(t)
			c := newClient(t)
			r := send(t.Context(), c, http.MethodPost, s.URL()+"/_idemcheck/rules", jsonType, tt.body)
			require.NoError(t, r.err)
			e := errorOf(t, r, http.StatusBadRequest)
			assert.Contains(t, e.Error.Message, tt.mention, "the error says what is wrong")

			assert.Equal(t, http.StatusOK, post(t, c, s, formType, form("amount", "100")).status, "nothing was armed")
		})
	}
}

func TestControlDisarm(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	s.Arm(fakes.Rule{Action: fakes.FailBefore, Times: 3})

	r := send(t.Context(), c, http.MethodDelete, s.URL()+"/_idemcheck/rules", "", "")
	require.NoError(t, r.err)
	require.Equal(t, http.StatusNoContent, r.status)
	assert.Equal(t, http.StatusOK, post(t, c, s, formType, form("amount", "100")).status)
}
