package payments_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes/payments"
)

func TestCreateCharge(t *testing.T) {
	tests := []struct {
		name        string
		why         string
		contentType string
		body        string
		want        payments.Charge // ID, Object, Created and Status are checked apart
	}{
		{
			name:        "form",
			why:         "Stripe's own clients send form-encoded parameters",
			contentType: formType,
			body:        form("amount", "1999", "currency", "eur", "customer", "cus_1", "description", "order 7", "metadata[order]", "7", "metadata[shop]", "north"),
			want:        payments.Charge{Amount: 1999, Currency: "eur", Customer: "cus_1", Description: "order 7", Metadata: map[string]string{"order": "7", "shop": "north"}},
		},
		{
			name:        "json",
			why:         "many targets send JSON",
			contentType: jsonType,
			body:        `{"amount":1999,"currency":"eur","customer":"cus_1","description":"order 7","metadata":{"order":"7","shop":"north"}}`,
			want:        payments.Charge{Amount: 1999, Currency: "eur", Customer: "cus_1", Description: "order 7", Metadata: map[string]string{"order": "7", "shop": "north"}},
		},
		{
			name:        "form default currency",
			why:         "currency is optional and defaults to usd",
			contentType: formType,
			body:        form("amount", "500"),
			want:        payments.Charge{Amount: 500, Currency: "usd", Metadata: map[string]string{}},
		},
		{
			name: "no content type",
			why:  "a body without Content-Type is read as a form, the encoding Stripe uses",
			body: form("amount", "500"),
			want: payments.Charge{Amount: 500, Currency: "usd", Metadata: map[string]string{}},
		},
		{
			name:        "json with charset and upper-case currency",
			why:         "media type parameters are allowed and currency codes are case-insensitive",
			contentType: "application/json; charset=utf-8",
			body:        `{"amount":"250","currency":"GBP","customer":null}`,
			want:        payments.Charge{Amount: 250, Currency: "gbp", Metadata: map[string]string{}},
		},
		{
			name:        "unknown parameters",
			why:         "targets may send parameters the real API takes but the fake ignores",
			contentType: formType,
			body:        form("amount", "100", "source", "tok_visa", "capture", "true"),
			want:        payments.Charge{Amount: 100, Currency: "usd", Metadata: map[string]string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := payments.Start(t)
			r := post(t, newClient(t), s, tt.contentType, tt.body, "Idempotency-Key", "k-"+tt.name)

			got := chargeOf(t, r)
			assert.Equal(t, "application/json", r.header.Get("Content-Type"))
			assert.Empty(t, r.header.Get("Idempotent-Replayed"), "a first request is not a replay")
			assert.Equal(t, "ch_000001", got.ID)
			assert.Equal(t, "charge", got.Object)
			assert.Equal(t, "succeeded", got.Status)
			assert.Positive(t, got.Created)
			want := tt.want
			want.ID, want.Object, want.Status, want.Created = got.ID, got.Object, got.Status, got.Created
			assert.Equal(t, want, got, tt.why)
			assert.Equal(t, []payments.Charge{got}, s.Charges())

			effects := s.Ledger().Effects()
			require.Len(t, effects, 1)
			e := effects[0]
			assert.Equal(t, int64(1), e.Seq)
			assert.Equal(t, "payments", e.Fake)
			assert.Equal(t, "charge", e.Kind)
			assert.Equal(t, "ch_000001", e.ID)
			assert.Equal(t, "k-"+tt.name, e.Key)
			assert.Empty(t, e.Markers)
			assert.False(t, e.At.IsZero())
			assert.Equal(t, map[string]string{
				"amount":   fmt.Sprint(tt.want.Amount),
				"currency": tt.want.Currency,
				"customer": tt.want.Customer,
			}, e.Detail)
		})
	}
}

func TestCreateChargeJSONShape(t *testing.T) {
	// Targets decode this; the field names are the contract.
	s := payments.Start(t)
	r := post(t, newClient(t), s, formType, form("amount", "100"))
	require.Equal(t, http.StatusOK, r.status)
	for _, field := range []string{`"id":"ch_000001"`, `"object":"charge"`, `"amount":100`, `"currency":"usd"`, `"customer":""`, `"description":""`, `"metadata":{}`, `"created":`, `"status":"succeeded"`} {
		assert.Contains(t, string(r.body), field)
	}
}

func TestCreateChargeInvalid(t *testing.T) {
	tests := []struct {
		name        string
		why         string
		contentType string
		body        string
		param       string
	}{
		{"missing amount", "amount is required", formType, form("currency", "usd"), "amount"},
		{"empty body", "an empty form has no amount", formType, "", "amount"},
		{"zero amount", "a charge must move money", formType, form("amount", "0"), "amount"},
		{"negative amount", "refunds are not charges", formType, form("amount", "-5"), "amount"},
		{"fractional amount", "amounts are in the smallest unit", formType, form("amount", "10.5"), "amount"},
		{"json float amount", "JSON numbers must be integers too", jsonType, `{"amount":10.5}`, "amount"},
		{"json exponent amount", "1e3 is not written as an integer", jsonType, `{"amount":1e3}`, "amount"},
		{"json text amount", "a string that is not a number", jsonType, `{"amount":"ten"}`, "amount"},
		{"json null amount", "null means absent", jsonType, `{"amount":null}`, "amount"},
		{"bad currency", "currencies are three-letter codes", formType, form("amount", "100", "currency", "dollars"), "currency"},
		{"nested metadata", "metadata is flat", jsonType, `{"amount":100,"metadata":{"a":{"b":"c"}}}`, "metadata[a][b]"},
		{"empty metadata key", "metadata keys are not empty", formType, "amount=100&metadata%5B%5D=x", "metadata[]"},
		{"malformed json", "the body must parse", jsonType, `{"amount":`, ""},
		{"json array", "the body must be an object", jsonType, `[1,2]`, ""},
		{"json null", "the body must be an object", jsonType, `null`, ""},
		{"json empty", "the body must not be empty", jsonType, ``, ""},
		{"json trailing data", "one object per request", jsonType, `{"amount":100}{"amount":200}`, ""},
		{"malformed form", "the body must parse", formType, "amount=%zz", ""},
		{"unsupported type", "only form and JSON are understood", "text/plain", "amount=100", ""},
		{"malformed type", "the Content-Type must parse", "application/", "amount=100", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := payments.Start(t)
			r := post(t, newClient(t), s, tt.contentType, tt.body)

			e := errorOf(t, r, http.StatusBadRequest)
			assert.Equal(t, "invalid_request_error", e.Error.Type, tt.why)
			assert.Equal(t, tt.param, e.Error.Param)
			assert.Empty(t, s.Ledger().Effects(), "a rejected request charges nothing")
			assert.Empty(t, s.Charges())
		})
	}
}

func TestCreateChargeBodyTooLarge(t *testing.T) {
	s := payments.Start(t)
	body := form("amount", "100", "description", strings.Repeat("x", payments.MaxBodyBytes))
	r := post(t, newClient(t), s, formType, body)

	errorOf(t, r, http.StatusRequestEntityTooLarge)
	assert.Empty(t, s.Ledger().Effects())
}

func TestCreateChargeSequentialIDs(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	for i := 1; i <= 3; i++ {
		got := chargeOf(t, post(t, c, s, formType, form("amount", fmt.Sprint(i*100))))
		assert.Equal(t, fmt.Sprintf("ch_%06d", i), got.ID)
	}
	var ids []string
	for _, ch := range s.Charges() {
		ids = append(ids, ch.ID)
	}
	assert.Equal(t, []string{"ch_000001", "ch_000002", "ch_000003"}, ids, "Charges is oldest first")
	for i, e := range s.Ledger().Effects() {
		assert.Equal(t, int64(i+1), e.Seq)
		assert.Equal(t, ids[i], e.ID)
	}

	// IDs are per server: a second server starts again at 1.
	other := payments.Start(t)
	assert.Equal(t, "ch_000001", chargeOf(t, post(t, c, other, formType, form("amount", "1"))).ID)
}

func TestCreateChargeMarkers(t *testing.T) {
	tests := []struct {
		name        string
		why         string
		path        string
		contentType string
		body        string
		hdr         []string
		want        []string
	}{
		{
			name: "description", why: "the usual place a target forwards caller data",
			contentType: formType, body: form("amount", "100", "description", "order "+markerA),
			want: []string{markerA},
		},
		{
			name: "header", why: "targets may forward a request id header",
			contentType: formType, body: form("amount", "100"), hdr: []string{"X-Request-Id", markerA},
			want: []string{markerA},
		},
		{
			name: "metadata", why: "JSON metadata values are scanned like any body text",
			contentType: jsonType, body: `{"amount":100,"metadata":{"intent":"` + markerA + `"}}`,
			want: []string{markerA},
		},
		{
			name: "url", why: "the URL is part of the request",
			path: "?trace=" + markerA, contentType: formType, body: form("amount", "100"),
			want: []string{markerA},
		},
		{
			name: "idempotency key", why: "a key derived from the marker attributes the charge",
			contentType: formType, body: form("amount", "100"), hdr: []string{"Idempotency-Key", "pay-" + markerA},
			want: []string{markerA},
		},
		{
			name: "two markers", why: "headers come before the body, each marker once",
			contentType: formType, body: form("amount", "100", "description", markerA+" "+markerB+" "+markerA),
			hdr:  []string{"X-Request-Id", markerB},
			want: []string{markerB, markerA},
		},
		{
			name: "none", why: "a request without markers is attributed to nothing",
			contentType: formType, body: form("amount", "100", "description", "idem-not-a-marker"),
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := payments.Start(t)
			r := send(t.Context(), newClient(t), http.MethodPost, s.URL()+"/v1/charges"+tt.path, tt.contentType, tt.body, tt.hdr...)
			require.NoError(t, r.err)
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)

			effects := s.Ledger().Effects()
			require.Len(t, effects, 1)
			assert.Equal(t, tt.want, effects[0].Markers, tt.why)
			for _, m := range tt.want {
				assert.Len(t, s.Ledger().ByMarker(m), 1)
			}
		})
	}
}

func TestListCharges(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	for i, cus := range []string{"cus_a", "cus_b", "cus_a", "cus_a"} {
		post(t, c, s, formType, form("amount", fmt.Sprint(100+i), "customer", cus))
	}

	type list struct {
		Object  string            `json:"object"`
		Data    []payments.Charge `json:"data"`
		HasMore bool              `json:"has_more"`
		URL     string            `json:"url"`
	}
	ids := func(l list) []string {
		var out []string
		for _, ch := range l.Data {
			out = append(out, ch.ID)
		}
		return out
	}
	tests := []struct {
		name    string
		query   string
		want    []string
		hasMore bool
	}{
		{"all, newest first", "", []string{"ch_000004", "ch_000003", "ch_000002", "ch_000001"}, false},
		{"by customer", "?customer=cus_a", []string{"ch_000004", "ch_000003", "ch_000001"}, false},
		{"limit", "?limit=2", []string{"ch_000004", "ch_000003"}, true},
		{"limit and customer", "?customer=cus_a&limit=3", []string{"ch_000004", "ch_000003", "ch_000001"}, false},
		{"unknown customer", "?customer=cus_z", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(t, c, s.URL()+"/v1/charges"+tt.query)
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
			var l list
			require.NoError(t, json.Unmarshal(r.body, &l))
			assert.Equal(t, "list", l.Object)
			assert.Equal(t, "/v1/charges", l.URL)
			assert.Equal(t, tt.want, ids(l))
			assert.Equal(t, tt.hasMore, l.HasMore)
			assert.Contains(t, string(r.body), `"data":[`, "an empty list is [], not null")
		})
	}

	for _, bad := range []string{"0", "101", "x"} {
		e := errorOf(t, get(t, c, s.URL()+"/v1/charges?limit="+bad), http.StatusBadRequest)
		assert.Equal(t, "limit", e.Error.Param)
	}
}

func TestGetCharge(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	created := post(t, c, s, formType, form("amount", "100", "metadata[k]", "v"))

	r := get(t, c, s.URL()+"/v1/charges/ch_000001")
	assert.Equal(t, chargeOf(t, created), chargeOf(t, r))

	e := errorOf(t, get(t, c, s.URL()+"/v1/charges/ch_999999"), http.StatusNotFound)
	assert.Equal(t, "invalid_request_error", e.Error.Type)
	assert.Equal(t, "resource_missing", e.Error.Code)
	assert.Contains(t, e.Error.Message, "ch_999999")
}

func TestNotFound(t *testing.T) {
	s := payments.Start(t)
	c := newClient(t)
	for _, tt := range []struct{ method, path string }{
		{http.MethodGet, "/"},
		{http.MethodGet, "/v1/refunds"},
		{http.MethodPost, "/v1/charges/ch_000001"},
		{http.MethodDelete, "/v1/charges"},
		{http.MethodPut, "/v1/charges"},
		{http.MethodGet, "/v1/charges/"},
		{http.MethodPut, "/_idemcheck/rules"},
		{http.MethodPost, "/_idemcheck/ledger"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := send(t.Context(), c, tt.method, s.URL()+tt.path, formType, form("amount", "100"))
			require.NoError(t, r.err)
			e := errorOf(t, r, http.StatusNotFound)
			assert.Equal(t, "invalid_request_error", e.Error.Type)
			assert.Contains(t, e.Error.Message, tt.path)
		})
	}
	assert.Empty(t, s.Ledger().Effects())
}
