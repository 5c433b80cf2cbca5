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
	s := payments.Start(t, withControl)
	c := newClient(t)

	empty := get(t, c, s.ControlURL()+"/_idemcheck/ledger")
	require.Equal(t, http.StatusOK, empty.status)
	assert.Equal(t, "application/json", empty.header.Get("Content-Type"))
	assert.JSONEq(t, `[]`, string(empty.body), "an empty ledger is [], not null")

	chargeOf(t, post(t, c, s, formType, form("amount", "100", "description", markerA), "Idempotency-Key", "k"))
	r := get(t, c, s.ControlURL()+"/_idemcheck/ledger")
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
			s := payments.Start(t, withControl)
			c := newClient(t)
			r := send(t.Context(), c, http.MethodPost, s.ControlURL()+"/_idemcheck/rules", jsonType, tt.rule)
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
	s := payments.Start(t, withControl)
	c := newClient(t)
	b, err := json.Marshal(fakes.Rule{Marker: markerA, Times: 2, Action: fakes.FailBefore})
	require.NoError(t, err)
	r := send(t.Context(), c, http.MethodPost, s.ControlURL()+"/_idemcheck/rules", jsonType, string(b))
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
			s := payments.Start(t, withControl)
			c := newClient(t)
			r := send(t.Context(), c, http.MethodPost, s.ControlURL()+"/_idemcheck/rules", jsonType, tt.body)
			require.NoError(t, r.err)
			e := errorOf(t, r, http.StatusBadRequest)
			assert.Contains(t, e.Error.Message, tt.mention, "the error says what is wrong")

			assert.Equal(t, http.StatusOK, post(t, c, s, formType, form("amount", "100")).status, "nothing was armed")
		})
	}
}

func TestControlDisarm(t *testing.T) {
	s := payments.Start(t, withControl)
	c := newClient(t)
	s.Arm(fakes.Rule{Action: fakes.FailBefore, Times: 3})

	r := send(t.Context(), c, http.MethodDelete, s.ControlURL()+"/_idemcheck/rules", "", "")
	require.NoError(t, r.err)
	require.Equal(t, http.StatusNoContent, r.status)
	assert.Equal(t, http.StatusOK, post(t, c, s, formType, form("amount", "100")).status)
}

// withControl starts the fake with its control API on a free port.
var withControl = payments.Options{ControlAddr: "127.0.0.1:0"}

// TestTargetCannotDisarmFaults is a target that tries to keep the faults
// armed for it from firing: every control request it sends to the address
// it is given gets 404, and the fault armed for its request still fires.
// The same requests sent to the control address do what they say.
func TestTargetCannotDisarmFaults(t *testing.T) {
	s := payments.Start(t, withControl)
	c := newClient(t)
	require.NotEqual(t, s.URL(), s.ControlURL(), "the control API has its own listener")
	s.Arm(fakes.Rule{Marker: markerA, Action: fakes.FailAfter})

	for _, tt := range []struct{ method, path, body string }{
		{http.MethodDelete, "/_idemcheck/rules", ""},
		{http.MethodPost, "/_idemcheck/rules", `{"marker":"` + markerA + `","action":"pass","times":5}`},
		{http.MethodGet, "/_idemcheck/ledger", ""},
		{http.MethodGet, "/_idemcheck/fired?marker=" + markerA, ""},
		{http.MethodDelete, "/_IDEMCHECK/rules", ""},
		{http.MethodDelete, "//_idemcheck/rules", ""},
	} {
		r := send(t.Context(), c, tt.method, s.URL()+tt.path, jsonType, tt.body)
		require.NoError(t, r.err)
		assert.Equal(t, http.StatusNotFound, r.status, "%s %s at the target's address: %s", tt.method, tt.path, r.body)
	}
	marked := post(t, c, s, formType, form("amount", "100", "description", markerA), "Idempotency-Key", "k-a")
	assert.Equal(t, http.StatusServiceUnavailable, marked.status, "the fault still fired: %s", marked.body)
	assert.Equal(t, 1, s.Fired(markerA))
	assert.Len(t, s.Ledger().Effects(), 1, "fail-after charged")

	// Both ways: through the control address, the same disarm works.
	s.Arm(fakes.Rule{Marker: markerB, Action: fakes.FailBefore})
	r := send(t.Context(), c, http.MethodDelete, s.ControlURL()+"/_idemcheck/rules", "", "")
	require.NoError(t, r.err)
	require.Equal(t, http.StatusNoContent, r.status)
	assert.Equal(t, http.StatusOK, post(t, c, s, formType, form("amount", "100", "description", markerB)).status, "disarmed through the control API")
	assert.Equal(t, 0, s.Fired(markerB))

	fired := get(t, c, s.ControlURL()+"/_idemcheck/fired?marker="+markerA)
	require.Equal(t, http.StatusOK, fired.status, "%s", fired.body)
	assert.JSONEq(t, `{"marker":"`+markerA+`","fired":1}`, string(fired.body))
	assert.Equal(t, http.StatusBadRequest, get(t, c, s.ControlURL()+"/_idemcheck/fired?marker=x").status)
}

func TestNoControlAPIUnlessAsked(t *testing.T) {
	s := payments.Start(t)
	assert.Empty(t, s.ControlURL(), "no control listener without ControlAddr")
	_, err := payments.New(payments.Options{ControlAddr: "0.0.0.0:0"})
	assert.ErrorContains(t, err, "not loopback")
}
