package http_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

func TestCallOutcomeByStatus(t *testing.T) {
	// Rows: the outcome model — 2xx did it, 4xx (409 included: a
	// duplicate in flight) did not, 5xx is unknown.
	rows := []struct {
		status int
		want   harness.Outcome
	}{
		{http.StatusOK, harness.OK},
		{http.StatusCreated, harness.OK},
		{http.StatusAccepted, harness.OK},
		{http.StatusNoContent, harness.OK},
		{http.StatusFound, harness.Fail}, // redirects are not followed
		{http.StatusBadRequest, harness.Fail},
		{http.StatusConflict, harness.Fail},
		{http.StatusUnprocessableEntity, harness.Fail},
		{http.StatusTooManyRequests, harness.Fail},
		{http.StatusInternalServerError, harness.Info},
		{http.StatusBadGateway, harness.Info},
		{http.StatusServiceUnavailable, harness.Info},
	}
	for _, row := range rows {
		t.Run(http.StatusText(row.status), func(t *testing.T) {
			body := `{"effect":"noop","data":{"id":"ord_1"}}`
			if row.status == http.StatusNoContent {
				body = ""
			}
			srv := newServer(t, replyWith(row.status, body, "Location", "/elsewhere"), nil)
			tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
			rep := call(t, tg, harness.Call{Key: "k"})
			assert.Equal(t, row.want, rep.Outcome)
			assert.Equal(t, row.status, rep.Status)
			assert.True(t, rep.Forwarded)
			assert.False(t, rep.Withheld)
			assert.Empty(t, rep.Error)
			assert.Equal(t, body, rep.Body)
			assert.Len(t, srv.seenAll(), 1, "a redirect must not be followed")
		})
	}
}

func TestCallNonJSONBody(t *testing.T) {
	srv := newServer(t, replyWith(http.StatusOK, "order created", "Content-Type", "text/plain"), nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{})
	assert.Equal(t, harness.OK, rep.Outcome)
	assert.False(t, rep.HasEffect, "no effect field in a body that is not JSON")
	assert.Empty(t, rep.Effect)
	assert.Empty(t, rep.Identity)
	assert.Equal(t, "order created", rep.Body)
}

func TestCallBodyEvidenceIsTruncated(t *testing.T) {
	long := `{"effect":"created","data":{"id":"ord_1"},"pad":"` + strings.Repeat("x", 5000) + `"}`
	srv := newServer(t, replyWith(http.StatusCreated, long), nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{})
	assert.Equal(t, long[:2048], rep.Body)
	assert.Equal(t, "created", rep.Effect, "the effect is read from the whole body")
	assert.Equal(t, "ord_1", rep.Identity)
}

func TestCallEffectAndIdentity(t *testing.T) {
	// Rows: where real APIs put the effect and the identity, and the JSON
	// value types an identity can have.
	rows := []struct {
		why       string
		effect    httptarget.Locator
		identity  httptarget.Locator
		body      string
		headers   []string
		wantEff   string
		hasEff    bool
		wantIdent string
	}{
		{"defaults: effect and data.id", httptarget.Locator{}, httptarget.Locator{},
			`{"effect":"created","data":{"id":"ord_1"}}`, nil, "created", true, "ord_1"},
		{"missing effect", httptarget.Locator{}, httptarget.Locator{},
			`{"data":{"id":"ord_1"}}`, nil, "", false, "ord_1"},
		{"null effect counts as missing", httptarget.Locator{}, httptarget.Locator{},
			`{"effect":null}`, nil, "", false, ""},
		{"empty effect is present", httptarget.Locator{}, httptarget.Locator{},
			`{"effect":""}`, nil, "", true, ""},
		{"nested paths", httptarget.Locator{JSON: "result.meta.effect"}, httptarget.Locator{JSON: "result.order.id"},
			`{"result":{"meta":{"effect":"updated"},"order":{"id":"o-9"}}}`, nil, "updated", true, "o-9"},
		{"array index", httptarget.Locator{JSON: "events.1.type"}, httptarget.Locator{JSON: "items.0.id"},
			`{"events":[{"type":"a"},{"type":"deleted"}],"items":[{"id":"i-1"}]}`, nil, "deleted", true, "i-1"},
		{"array index out of range", httptarget.Locator{JSON: "events.5"}, httptarget.Locator{JSON: "items.-1"},
			`{"events":[],"items":["x"]}`, nil, "", false, ""},
		{"path through a scalar", httptarget.Locator{JSON: "effect.kind"}, httptarget.Locator{JSON: "data.id.x"},
			`{"effect":"created","data":{"id":"ord_1"}}`, nil, "", false, ""},
		{"integer identity", httptarget.Locator{}, httptarget.Locator{},
			`{"effect":"created","data":{"id":42}}`, nil, "created", true, "42"},
		{"fractional identity", httptarget.Locator{}, httptarget.Locator{},
			`{"effect":"created","data":{"id":12.5}}`, nil, "created", true, "12.5"},
		{"large exact integer", httptarget.Locator{}, httptarget.Locator{},
			`{"data":{"id":1234567890123}}`, nil, "", false, "1234567890123"},
		{"boolean", httptarget.Locator{}, httptarget.Locator{JSON: "ok"},
			`{"ok":true}`, nil, "", false, "true"},
		{"object identity is its JSON", httptarget.Locator{}, httptarget.Locator{JSON: "data"},
			`{"data":{"id":"a","n":1}}`, nil, "", false, `{"id":"a","n":1}`},
		{"header locators", httptarget.Locator{Header: "Idempotent-Effect"}, httptarget.Locator{Header: "Location"},
			`{"effect":"ignored"}`, []string{"Idempotent-Effect", "noop", "Location", "/orders/7"}, "noop", true, "/orders/7"},
		{"header locator, header absent", httptarget.Locator{Header: "Idempotent-Effect"}, httptarget.Locator{Header: "Location"},
			`{"effect":"created"}`, nil, "", false, ""},
		{"header locator on a body that is not JSON", httptarget.Locator{Header: "X-Effect"}, httptarget.Locator{},
			`created`, []string{"X-Effect", "created"}, "created", true, ""},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			srv := newServer(t, replyWith(http.StatusOK, row.body, row.headers...), nil)
			cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
			cfg.Effect, cfg.Identity = row.effect, row.identity
			tg := mustNew(t, cfg)
			rep := call(t, tg, harness.Call{})
			require.Equal(t, harness.OK, rep.Outcome, rep.Error)
			assert.Equal(t, row.wantEff, rep.Effect, "effect")
			assert.Equal(t, row.hasEff, rep.HasEffect, "has effect")
			assert.Equal(t, row.wantIdent, rep.Identity, "identity")
		})
	}
}

func TestCallIdentityKeepsEveryDigitOfALargeInteger(t *testing.T) {
	srv := newServer(t, replyWith(http.StatusOK, `{"effect":"created","data":{"id":9007199254740993}}`), nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{})
	assert.Equal(t, "9007199254740993", rep.Identity)
}

func TestCallPerOperationLocators(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Effect", "header-"+strings.TrimPrefix(r.URL.Path, "/"))
		_, _ = w.Write([]byte(`{"effect":"created","data":{"id":"d-1"},"order":{"ref":"r-1"}}`))
	}, nil)
	cfg := httptarget.Config{Name: "shop", BaseURL: srv.srv.URL, Operations: []httptarget.Operation{
		{Name: "create", Mutating: true, Path: "/create"},
		{Name: "refund", Mutating: true, Path: "/refund",
			Effect: &httptarget.Locator{Header: "X-Effect"}, Identity: &httptarget.Locator{JSON: "order.ref"}},
	}}
	tg := mustNew(t, cfg)

	create := call(t, tg, harness.Call{Operation: "create"})
	assert.Equal(t, "created", create.Effect, "the target's locators")
	assert.Equal(t, "d-1", create.Identity)

	refund := call(t, tg, harness.Call{ID: "run-2-1", Operation: "refund"})
	assert.Equal(t, "header-refund", refund.Effect, "the operation's effect locator")
	assert.Equal(t, "r-1", refund.Identity, "the operation's identity locator")
}

func TestCallReplayed(t *testing.T) {
	// Rows: the replay marker header, its spellings, and a custom name.
	rows := []struct {
		why     string
		cfgHdr  string
		headers []string
		want    bool
	}{
		{"default header true", "", []string{"Idempotent-Replayed", "true"}, true},
		{"any case", "", []string{"Idempotent-Replayed", "TRUE"}, true},
		{"false", "", []string{"Idempotent-Replayed", "false"}, false},
		{"absent", "", nil, false},
		{"custom header", "X-Replayed", []string{"X-Replayed", "true"}, true},
		{"default header ignored under a custom name", "X-Replayed", []string{"Idempotent-Replayed", "true"}, false},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			srv := newServer(t, replyWith(http.StatusOK, `{"effect":"noop"}`, row.headers...), nil)
			cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
			cfg.ReplayedHeader = row.cfgHdr
			tg := mustNew(t, cfg)
			rep := call(t, tg, harness.Call{Key: "k"})
			assert.Equal(t, row.want, rep.Replayed)
		})
	}
}

func TestInfo(t *testing.T) {
	srv := newServer(t, nil, nil)
	inputs := map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 100}}
	tg := mustNew(t, httptarget.Config{
		Name: "shop", BaseURL: srv.srv.URL, DryRun: &httptarget.DryRun{Query: "dry_run"},
		Operations: []httptarget.Operation{
			{Name: "create", Mutating: true, Path: "/orders", Inputs: inputs},
			{Name: "get", Method: http.MethodGet, Path: "/orders/1"},
		},
	})
	assert.Equal(t, harness.TargetInfo{Name: "shop", Kind: "http", Capabilities: &harness.Capabilities{Keys: true, EffectField: true, DryRun: true}, Operations: []harness.Operation{
		{Name: "create", Mutating: true, DryRun: true, Inputs: inputs},
		{Name: "get"},
	}}, tg.Info())
}

func TestNewErrors(t *testing.T) {
	_, err := httptarget.New(httptarget.Config{Name: "shop", BaseURL: "http://127.0.0.1:1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http target shop: no operations")

	_, err = httptarget.New(oneOp("127.0.0.1:8080", httptarget.Operation{Path: "/x"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a base URL")
}

// TestCallOverlongBodyIsCut: a 200 whose body is larger than what is kept
// is not a clean 200: the reply says it was cut and how much arrived.
func TestCallOverlongBodyIsCut(t *testing.T) {
	body := `{"effect":"created","data":{"id":"ord_1"},"pad":"` + strings.Repeat("x", 3<<20) + `"}`
	srv := newServer(t, replyWith(http.StatusOK, body), nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k"})
	assert.Equal(t, harness.Info, rep.Outcome, "a cut reply's outcome is unknown")
	assert.Equal(t, http.StatusOK, rep.Status)
	require.Contains(t, rep.Error, "cut")
	assert.Contains(t, rep.Error, strconv.Itoa(len(body))+" bytes arrived")
}

// TestLocalhostIsNotLookedUp: a target URL naming localhost is reached at
// 127.0.0.1 without asking a resolver (which, without an /etc/hosts
// entry, would ask DNS).
func TestLocalhostIsNotLookedUp(t *testing.T) {
	srv := newServer(t, replyWith(http.StatusCreated, `{"effect":"created","data":{"id":"ord_1"}}`), nil)
	base := strings.Replace(srv.srv.URL, "127.0.0.1", "LocalHost", 1)
	tg := mustNew(t, oneOp(base, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Key: "k"})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	seen := srv.seenAll()
	require.Len(t, seen, 1)
	assert.True(t, strings.HasPrefix(seen[0].Host, "127.0.0.1:"), "the target was reached as %q", seen[0].Host)
}
