package http_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

func TestCallRendersTheRequestTemplates(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{
		Name:     "create",
		Mutating: true,
		Method:   http.MethodPut,
		Path:     "/orders/{{input.customer}}/{{key}}?m={{marker}}&c={{input.customer}}",
		Headers:  map[string]string{"X-Marker": "{{marker}}", "X-Customer": "{{input.customer}}"},
		Body:     `{"customer":"{{input.customer}}","amount":{{input.amount}},"marker":"{{marker}}"}`,
	}))
	const customer = "ann & bob" // needs escaping in a URL, not in a header or a body
	rep := call(t, tg, harness.Call{
		ID: "run-1-1", Key: "k 1", Marker: "idem-7f3a",
		Inputs: map[string]string{"customer": customer, "amount": "1200"},
	})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)

	reqs := srv.seenAll()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPut, r.Method)
	// Path values are path-escaped, so they arrive as they were.
	assert.Equal(t, "/orders/"+customer+"/k 1", r.Path)
	assert.Equal(t, customer, r.Query.Get("c"), "a query value round-trips")
	assert.Equal(t, "idem-7f3a", r.Query.Get("m"))
	assert.Equal(t, "idem-7f3a", r.Header.Get("X-Marker"))
	assert.Equal(t, customer, r.Header.Get("X-Customer"), "header values are not escaped")
	assert.JSONEq(t, `{"customer":"ann & bob","amount":1200,"marker":"idem-7f3a"}`, r.Body, "the body is not escaped")
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"), "a JSON body defaults its content type")
	assert.Equal(t, "k 1", r.Header.Get(httptarget.DefaultKeyHeader))
	assert.Empty(t, r.Header.Get(faults.AttemptHeader), "the proxy's attempt header must not reach the target")
}

func TestCallPathInputWithASpaceRoundTrips(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/customers/{{input.name}}"}))
	rep := call(t, tg, harness.Call{Inputs: map[string]string{"name": "ann bob"}})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	reqs := srv.seenAll()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/customers/ann bob", reqs[0].Path)
}

func TestCallPathInputWithASlashStaysOneSegment(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/orders/{{input.ref}}"}))
	rep := call(t, tg, harness.Call{Inputs: map[string]string{"ref": "a/b"}})
	require.Equal(t, harness.OK, rep.Outcome, rep.Error)
	reqs := srv.seenAll()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/orders/a%2Fb", reqs[0].EscapedPath)
}

func TestCallDefaultsToPOST(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/orders"}))
	call(t, tg, harness.Call{})
	reqs := srv.seenAll()
	require.Len(t, reqs, 1)
	assert.Equal(t, http.MethodPost, reqs[0].Method)
	assert.Equal(t, "/orders", reqs[0].Path)
	assert.Empty(t, reqs[0].Body)
}

func TestCallContentType(t *testing.T) {
	// Rows: only a JSON body without an explicit type gets the JSON default.
	rows := []struct {
		why     string
		body    string
		headers map[string]string
		want    string
	}{
		{"JSON body", `{"a":1}`, nil, "application/json"},
		{"JSON array body", `[1,2]`, nil, "application/json"},
		{"form body is left alone", `a=1&b=2`, nil, ""},
		{"explicit type wins", `{"a":1}`, map[string]string{"Content-Type": "application/merge-patch+json"}, "application/merge-patch+json"},
		{"no body, no type", ``, nil, ""},
		{"a template that renders invalid JSON", `{"a":{{input.v}}}`, nil, ""},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			srv := newServer(t, nil, nil)
			tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x", Body: row.body, Headers: row.headers}))
			call(t, tg, harness.Call{Inputs: map[string]string{"v": "not json"}})
			reqs := srv.seenAll()
			require.Len(t, reqs, 1)
			assert.Equal(t, row.want, reqs[0].Header.Get("Content-Type"))
		})
	}
}

func TestCallKeyHeader(t *testing.T) {
	// Rows: the key header is sent only when the call has a key, under the
	// configured name.
	rows := []struct {
		why       string
		keyHeader string
		key       string
		want      map[string]string // header → value; "" means absent
	}{
		{"default header", "", "k-1", map[string]string{"Idempotency-Key": "k-1"}},
		{"no key, no header", "", "", map[string]string{"Idempotency-Key": ""}},
		{"custom header", "X-Request-Id", "k-2", map[string]string{"X-Request-Id": "k-2", "Idempotency-Key": ""}},
		{"custom header, no key", "X-Request-Id", "", map[string]string{"X-Request-Id": ""}},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			srv := newServer(t, nil, nil)
			cfg := oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"})
			cfg.KeyHeader = row.keyHeader
			tg := mustNew(t, cfg)
			call(t, tg, harness.Call{Key: row.key})
			reqs := srv.seenAll()
			require.Len(t, reqs, 1)
			for h, v := range row.want {
				if v == "" {
					assert.NotContains(t, reqs[0].Header, http.CanonicalHeaderKey(h))
				} else {
					assert.Equal(t, v, reqs[0].Header.Get(h))
				}
			}
		})
	}
}

func TestCallTemplateErrorsAreFailuresThatSendNothing(t *testing.T) {
	// Rows: an unknown placeholder in each template; a typo must never
	// reach the target as a literal.
	rows := []struct {
		why string
		op  httptarget.Operation
	}{
		{"path", httptarget.Operation{Path: "/x/{{input.nope}}"}},
		{"body", httptarget.Operation{Path: "/x", Body: `{"a":"{{input.nope}}"}`}},
		{"header", httptarget.Operation{Path: "/x", Headers: map[string]string{"X-A": "{{input.nope}}"}}},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			srv := newServer(t, nil, nil)
			tg := mustNew(t, oneOp(srv.srv.URL, row.op))
			rep := call(t, tg, harness.Call{})
			assert.Equal(t, harness.Fail, rep.Outcome)
			assert.Contains(t, rep.Error, "unknown placeholder {{input.nope}}")
			assert.False(t, rep.Forwarded)
			assert.Empty(t, srv.seenAll())
		})
	}
}

func TestCallUnknownOperation(t *testing.T) {
	srv := newServer(t, nil, nil)
	tg := mustNew(t, oneOp(srv.srv.URL, httptarget.Operation{Path: "/x"}))
	rep := call(t, tg, harness.Call{Operation: "refund"})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "unknown operation refund")
	assert.Empty(t, srv.seenAll())
}

func TestCallDryRun(t *testing.T) {
	// Rows: each way of asking for a dry run, and the operation's own mode
	// overriding the target's.
	rows := []struct {
		why       string
		target    *httptarget.DryRun
		op        *httptarget.DryRun
		path      string
		wantQuery url.Values
		wantHdr   map[string]string
	}{
		{"query, default value", &httptarget.DryRun{Query: "dry_run"}, nil, "/orders",
			url.Values{"dry_run": {"true"}}, nil},
		{"query, custom value, existing query kept", &httptarget.DryRun{Query: "mode", Value: "validate"}, nil, "/orders?x=1",
			url.Values{"mode": {"validate"}, "x": {"1"}}, nil},
		{"header", &httptarget.DryRun{Header: "Idempotency-Dry-Run", Value: "yes"}, nil, "/orders",
			url.Values{}, map[string]string{"Idempotency-Dry-Run": "yes"}},
		{"operation overrides target", &httptarget.DryRun{Query: "dry_run"}, &httptarget.DryRun{Header: "X-Dry-Run"}, "/orders",
			url.Values{}, map[string]string{"X-Dry-Run": "true"}},
		{"operation only", nil, &httptarget.DryRun{Query: "preview"}, "/orders",
			url.Values{"preview": {"true"}}, nil},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			srv := newServer(t, nil, nil)
			cfg := oneOp(srv.srv.URL, httptarget.Operation{Mutating: true, Path: row.path, DryRun: row.op})
			cfg.DryRun = row.target
			tg := mustNew(t, cfg)
			op, ok := tg.Info().Operation("create")
			require.True(t, ok)
			assert.True(t, op.DryRun, "Info offers the dry run")

			rep := call(t, tg, harness.Call{DryRun: true})
			require.Equal(t, harness.OK, rep.Outcome, rep.Error)
			rep = call(t, tg, harness.Call{ID: "run-1-2"}) // the real request carries no dry-run flag
			require.Equal(t, harness.OK, rep.Outcome, rep.Error)

			reqs := srv.seenAll()
			require.Len(t, reqs, 2)
			assert.Equal(t, row.wantQuery, reqs[0].Query)
			for h, v := range row.wantHdr {
				assert.Equal(t, v, reqs[0].Header.Get(h))
				assert.Empty(t, reqs[1].Header.Get(h))
			}
			for q := range row.wantQuery {
				if q != "x" {
					assert.Empty(t, reqs[1].Query.Get(q))
				}
			}
		})
	}
}

func TestCallDryRunOfAnOperationWithoutOne(t *testing.T) {
	srv := newServer(t, nil, nil)
	cfg := httptarget.Config{Name: "shop", BaseURL: srv.srv.URL, Operations: []httptarget.Operation{
		{Name: "create", Mutating: true, Path: "/orders"},
		{Name: "list", Method: http.MethodGet, Path: "/orders", DryRun: &httptarget.DryRun{Query: "dry_run"}},
	}}
	tg := mustNew(t, cfg)

	rep := call(t, tg, harness.Call{Operation: "create", DryRun: true})
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "operation create has no dry-run mode")
	assert.False(t, rep.Forwarded)
	assert.Empty(t, srv.seenAll(), "a dry run that cannot be asked for must not become a real request")

	create, _ := tg.Info().Operation("create")
	assert.False(t, create.DryRun)
	list, _ := tg.Info().Operation("list")
	assert.False(t, list.DryRun, "only mutating operations advertise a dry run")
}
