package observe_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/observe"
)

// Every built-in source: registered under its own Type, with a summary,
// decoded strictly, its settings checked.
func TestEveryBuiltinSource(t *testing.T) {
	r := observe.Builtin()
	assert.Equal(t, []string{"count", "file", "http", "mcp", "redis", "sql"}, r.Names())
	for _, name := range r.Names() {
		d, ok := r.Describe(name)
		require.True(t, ok)
		assert.Equal(t, name, d.New().Type(), "a source's Type is its registered name")
		assert.NotEmpty(t, d.Summary, name)
		assert.NotSame(t, d.New(), d.New(), "%s: fresh settings each time", name)
		_, err := r.New(name, []byte(`{"no_such_setting": 1}`))
		assert.ErrorContains(t, err, `unknown field "no_such_setting"`, name)
		_, err = r.New(name, nil)
		assert.ErrorContains(t, err, "observer source "+name+": ", "%s: the zero settings are incomplete", name)
	}
}

func TestRegistryNewDecodesSettings(t *testing.T) {
	r := observe.Builtin()
	for _, tc := range []struct {
		name     string
		settings string
		want     observe.Source
	}{
		{"sql", `{"dsn": "{{env.DATABASE_URL}}", "query": "SELECT id FROM orders WHERE note = {{marker}}"}`,
			&observe.SQL{DSN: "{{env.DATABASE_URL}}", Query: "SELECT id FROM orders WHERE note = {{marker}}"}},
		{"http", `{"path": "/v1/orders?search={{marker}}", "items": "data", "pages": {"next": "meta.next", "cursor": "after", "max": 5}}`,
			&observe.HTTP{URL: "/v1/orders?search={{marker}}", Items: "data", Pages: observe.Pages{Next: "meta.next", Cursor: "after", Max: 5}}},
		{"mcp", `{"tool": "search_nodes", "arguments": {"query": "{{marker}}"}, "items": "entities", "id": "name", "command": ["./memory"]}`,
			&observe.MCP{Tool: "search_nodes", Arguments: map[string]any{"query": "{{marker}}"}, Items: "entities", ID: "name", Command: []string{"./memory"}}},
		{"file", `{"path": "{{state_dir}}/results.jsonl", "id": "key"}`, &observe.File{Path: "{{state_dir}}/results.jsonl", ID: "key"}},
		{"redis", `{"url": "redis://127.0.0.1:6379/0", "stream": "events"}`, &observe.Redis{URL: "redis://127.0.0.1:6379/0", Stream: "events"}},
		{"count", `{"sql": {"dsn": "sqlite:/tmp/l.db", "query": "SELECT coalesce(sum(amount), 0) FROM transactions"}, "unit": 500}`,
			&observe.Count{SQL: &observe.SQL{DSN: "sqlite:/tmp/l.db", Query: "SELECT coalesce(sum(amount), 0) FROM transactions"}, Unit: 500}},
	} {
		got, err := r.New(tc.name, []byte(tc.settings))
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestRegistryNewErrors(t *testing.T) {
	r := observe.Builtin()
	for _, tc := range []struct {
		name, settings, want string
	}{
		{"ftp", `{}`, `unknown observer source "ftp": expected one of count, file, http, mcp, redis, sql`},
		{"sql", `{"dsn": "mysql://h/db", "query": "SELECT {{marker}}"}`, `observer source sql: dsn: unsupported database "mysql://h/db"`},
		{"sql", `{"dsn": "sqlite:x.db", "query": "SELECT id FROM orders"}`, "no {{marker}}"},
		{"http", `{"path": "/x", "pages": {"link": true, "page": "p"}}`, "choose one of link, next, page or offset"},
		{"file", `{"path": "x", "format": "csv"}`, `format "csv"`},
		{"redis", `{"url": "redis://h:1", "keys": "a", "hash": "b"}`, "set one of keys"},
		{"count", `{"sql": {"dsn": "sqlite:x.db", "query": "SELECT 1"}, "unit": -2}`, "unit -2"},
		{"sql", `{"dsn": 5}`, "settings: json: cannot unmarshal number"},
	} {
		_, err := r.New(tc.name, []byte(tc.settings))
		assert.ErrorContains(t, err, tc.want, "%s %s", tc.name, tc.settings)
	}
}
