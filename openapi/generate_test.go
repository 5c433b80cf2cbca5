package openapi_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/openapi"
)

type genTarget struct {
	Name      string         `yaml:"name"`
	URL       string         `yaml:"url"`
	KeyHeader string         `yaml:"key_header"`
	DryRun    map[string]any `yaml:"dry_run"`
	Observe   []struct {
		Name string            `yaml:"name"`
		HTTP map[string]string `yaml:"http"`
	} `yaml:"observe"`
	Operations []struct {
		Name     string            `yaml:"name"`
		Mutating bool              `yaml:"mutating"`
		Method   string            `yaml:"method"`
		Path     string            `yaml:"path"`
		Headers  map[string]string `yaml:"headers"`
		Body     string            `yaml:"body"`
		Inputs   map[string]any    `yaml:"inputs"`
	} `yaml:"operations"`
}

func generate(t *testing.T, path string) (openapi.Config, genTarget) {
	t.Helper()
	doc, err := openapi.Load(context.Background(), path)
	require.NoError(t, err)
	c := openapi.Generate(doc, openapi.Options{Source: path})
	var f struct {
		Version int         `yaml:"version"`
		Targets []genTarget `yaml:"targets"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(c.YAML), &f), "the output is YAML:\n%s", c.YAML)
	require.Equal(t, 1, f.Version)
	require.Len(t, f.Targets, 1)
	return c, f.Targets[0]
}

// TestGenerateOrders: the reference orders service's spec (OpenAPI 3.1,
// YAML) gives a configuration with nothing left to fill in.
func TestGenerateOrders(t *testing.T) {
	c, tg := generate(t, "../examples/orders/openapi.yaml")
	assert.Empty(t, c.TODOs, "everything could be read from the spec:\n%s", c.YAML)
	assert.Equal(t, "orders", tg.Name)
	assert.Equal(t, "http://127.0.0.1:8080", tg.URL, "the server's variables at their defaults")
	assert.Equal(t, "Idempotency-Key", tg.KeyHeader, "the declared key header")
	assert.Equal(t, map[string]any{"query": "dry_run"}, tg.DryRun)
	require.Len(t, tg.Operations, 2)
	create, list := tg.Operations[0], tg.Operations[1]
	assert.Equal(t, "create-order", create.Name)
	assert.True(t, create.Mutating)
	assert.Equal(t, "POST", create.Method)
	assert.Equal(t, `{"amount":{{input.amount}},"customer":"{{input.customer}}","note":"orders {{marker}}"}`, create.Body,
		"required properties as inputs, the marker in the free-text note")
	assert.Equal(t, map[string]any{"int": []any{100, 99999}}, create.Inputs["amount"], "the schema's bounds")
	assert.NotContains(t, create.Headers, "Idempotency-Key", "the key header is the adapter's to send")
	assert.Equal(t, "list-orders", list.Name)
	assert.False(t, list.Mutating)
	assert.Equal(t, "/v1/orders?search={{marker}}", list.Path)
	require.Len(t, tg.Observe, 1, "the searchable list of what POST creates reads back each intent's orders")
	assert.Equal(t, map[string]string{"path": "/v1/orders?search={{marker}}", "items": "data"}, tg.Observe[0].HTTP)
}

// TestGenerateTODOs: an OpenAPI 3.0 JSON spec that declares no key header,
// no free text, a relative server and no list endpoint: each gap is a TODO
// with its line, and every method is classified.
func TestGenerateTODOs(t *testing.T) {
	c, tg := generate(t, "testdata/payments.json")
	lines := strings.Split(c.YAML, "\n")
	want := []string{"url: the spec's server \"/api\" is relative", "key_header: the spec declares no idempotency key header",
		"observe: no list endpoint",
		"operation delete-items-item-id: {itemId} in its path must name something that exists; a generated value finds nothing (404)",
		"operation delete-items-item-id: put {{marker}} in a value the API keeps (no JSON request body)",
		"operation get-items-item-id: {itemId} in its path must name something that exists",
		"operation head-items-item-id: {itemId} in its path must name something that exists",
		"operation create-payment: put {{marker}} in a value the API keeps (no free-text field in its request body)"}
	require.Len(t, c.TODOs, len(want), "%v", c.TODOs)
	for i, w := range want {
		assert.Contains(t, c.TODOs[i], w)
		var n int
		_, err := fmtSscan(c.TODOs[i], &n)
		require.NoError(t, err)
		assert.Contains(t, lines[n-1], "TODO", "the TODO's line number points at it: %q", c.TODOs[i])
	}
	byName := map[string]bool{}
	for _, op := range tg.Operations {
		byName[op.Name] = op.Mutating
	}
	assert.Equal(t, map[string]bool{"create-payment": true, "put-items-item-id": true, "delete-items-item-id": true,
		"get-items-item-id": false, "head-items-item-id": false}, byName)
	for _, op := range tg.Operations {
		switch op.Name {
		case "create-payment":
			assert.Equal(t, `{"amount":{{input.amount}},"currency":"{{input.currency}}"}`, op.Body)
			assert.Equal(t, map[string]any{"choice": []any{"usd", "eur"}}, op.Inputs["currency"])
		case "put-items-item-id":
			assert.Equal(t, "/items/{{input.itemid}}", op.Path)
			assert.Equal(t, map[string]any{"int": []any{1, 1000}}, op.Inputs["itemid"])
			assert.Equal(t, "{{input.x_tenant}}", op.Headers["X-Tenant"], "a required header is an input")
			assert.Contains(t, op.Body, `"description":"items {{marker}}"`, "an optional free-text field still takes the marker")
		case "get-items-item-id":
			assert.Equal(t, "{{marker}}", op.Headers["X-Idemcheck-Trace"], "a safe call with nothing to search carries its marker in a header")
		}
	}
}

func TestLoadRejects(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		why, doc, want string
	}{
		{"Swagger 2.0 is not OpenAPI 3", `{"swagger":"2.0","info":{"title":"x","version":"1"},"paths":{}}`, "expected an OpenAPI 3.0 or 3.1 document"},
		{"not a document at all", `[1, 2`, "not an OpenAPI 3 document"},
		{"an invalid document", `{"openapi":"3.0.0","info":{"title":"x","version":"1"},"paths":{"/a":{"post":{"responses":{"200":{}}}}}}`, "invalid OpenAPI document"},
	} {
		_, err := openapi.LoadData(ctx, "spec.json", []byte(tc.doc))
		require.Error(t, err, tc.why)
		assert.Contains(t, err.Error(), tc.want, tc.why)
		assert.Contains(t, err.Error(), "spec.json", tc.why)
	}
}

// FuzzGenerate: whatever a spec holds, a valid one gives valid YAML and
// no panic.
func FuzzGenerate(f *testing.F) {
	f.Add([]byte(`{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/a/{b}":{"post":{"parameters":[{"name":"b","in":"path","required":true,"schema":{"type":"string"}}],"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"note":{"type":"string"}}}}}},"responses":{"200":{"description":"ok"}}}}}}`))
	f.Add([]byte("openapi: 3.1.0\ninfo: {title: \"it's\", version: '1'}\npaths: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := openapi.LoadData(context.Background(), "fuzz", data)
		if err != nil {
			return
		}
		c := openapi.Generate(doc, openapi.Options{})
		var v any
		if err := yaml.Unmarshal([]byte(c.YAML), &v); err != nil {
			t.Fatalf("invalid YAML: %v\n%s", err, c.YAML)
		}
	})
}

// TestCommentsHoldOnlyWhatYAMLAllows: text from the spec written into the
// configuration's comments (its title, an operation's summary) loses the
// characters a YAML document may not hold, stays on its line, and a long
// one is cut between characters, not inside one.
func TestCommentsHoldOnlyWhatYAMLAllows(t *testing.T) {
	long := strings.Repeat("é", 80)
	spec := `{"openapi":"3.0.0","info":{"title":"Pay\u007fments\u0001 API\nv2\u0085","version":"1"},` +
		`"paths":{"/a":{"post":{"summary":"Makes\u0002 a\u009f charge ` + long + `","responses":{"200":{"description":"ok"}}}}}}`
	doc, err := openapi.LoadData(context.Background(), "spec.json", []byte(spec))
	require.NoError(t, err)
	c := openapi.Generate(doc, openapi.Options{})
	var v any
	require.NoError(t, yaml.Unmarshal([]byte(c.YAML), &v), c.YAML)
	assert.Contains(t, c.YAML, "# idemcheck configuration for Payments API v2 1, written by")
	assert.Contains(t, c.YAML, "# POST /a: Makes a charge éé")
	assert.True(t, utf8.ValidString(c.YAML))
	assert.Contains(t, c.YAML, "é…\n", "cut between characters")
}

// TestGenerateFindsTheListFilterAndTheIdentity: a collection whose list
// filters by a property of what its POST creates (GET /invoices?customer=,
// POST /invoices {customer}) gets its marker in that property and the list
// as its read-back; a create reply whose schema has a top-level id names
// its identity there; a path parameter of an action is a TODO.
func TestGenerateFindsTheListFilterAndTheIdentity(t *testing.T) {
	c, tg := generate(t, "testdata/invoices.yaml")
	require.Len(t, tg.Observe, 1, c.YAML)
	assert.Equal(t, "/v1/invoices?customer={{marker}}", tg.Observe[0].HTTP["path"])
	assert.Equal(t, "data", tg.Observe[0].HTTP["items"])
	for _, op := range tg.Operations {
		if op.Name == "create-invoice" {
			assert.Contains(t, op.Body, `"customer":"{{marker}}"`, "the marker goes where the list finds it")
		}
	}
	assert.Contains(t, c.YAML, "    identity: {json: id}")
	assert.NotContains(t, strings.Join(c.TODOs, "\n"), "observe:")
	assert.Contains(t, strings.Join(c.TODOs, "\n"), "operation send-invoice: {id} in its path must name something that exists")
}
