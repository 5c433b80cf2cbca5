package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/section"
)

// withObserve is minimal with an observe section written after its url.
func withObserve(section string) string {
	return strings.Replace(minimal, "    url: http://127.0.0.1:8080\n", "    url: http://127.0.0.1:8080\n"+section, 1)
}

func TestObserveParses(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(withObserve(`    observe:
      - name: orders-api
        kind: order
        http: {path: "/v1/orders?search={{marker}}", items: data}
      - sql: {dsn: "sqlite:{{state_dir}}/orders.db", query: "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"}
        settle: {within: 5s}
`)))
	require.NoError(t, err)
	obs := f.Targets[0].Base().Observe
	require.Len(t, obs, 2)
	assert.Equal(t, config.Observer{Name: "orders-api", Kind: "order",
		HTTP:   &config.ObserveHTTP{Path: "/v1/orders?search={{marker}}", Method: "GET", Items: "data", ID: "id"},
		Settle: config.Settle{Quiet: config.Duration(section.DefaultSettleQuietHTTP), Within: config.Duration(section.DefaultSettleWithin), Interval: config.Duration(section.DefaultSettleInterval)},
	}, obs[0], "defaults filled in")
	assert.Equal(t, "sql", obs[1].Name, "named after its source by default")
	assert.Equal(t, "row", obs[1].Kind)
	assert.Equal(t, config.Duration(5*time.Second), obs[1].Settle.Within)
	assert.Zero(t, obs[1].Settle.Quiet, "a database is read once")
}

func TestObserveErrors(t *testing.T) {
	for _, tc := range []struct {
		why     string
		section string
		want    []want
	}{
		{
			why:     "a source is http or sql",
			section: "    observe:\n      - name: x\n",
			want:    []want{{7, 9, "targets[0].observe[0]", "set one source: http (a read-back of the target's own API"}},
		},
		{
			why:     "not both",
			section: "    observe:\n      - http: {path: /o}\n        sql: {dsn: \"sqlite:x.db\", query: \"SELECT {{marker}}\"}\n",
			want:    []want{{7, 9, "targets[0].observe[0]", "set one source of http, sql, not several"}},
		},
		{
			why:     "a read-back path is under the target's url",
			section: "    observe:\n      - http: {path: \"v1/orders?q={{marker}}\"}\n",
			want:    []want{{7, 22, "targets[0].observe[0].http.path", `must start with "/"`}},
		},
		{
			why:     "a query without the marker would count every row for every intent",
			section: "    observe:\n      - sql: {dsn: \"postgres://app:s3cret@db:5432/shop\", query: \"SELECT id FROM orders\"}\n",
			want:    []want{{7, 65, "targets[0].observe[0].sql.query", "does not use {{marker}}"}},
		},
		{
			why:     "an unknown database is refused without printing the DSN (it may hold a password)",
			section: "    observe:\n      - sql: {dsn: \"mysql://app:s3cret@db/shop\", query: \"SELECT {{marker}}\"}\n",
			want:    []want{{7, 20, "targets[0].observe[0].sql.dsn", "unsupported database: expected postgres://"}},
		},
		{
			why:     "placeholders a source cannot know",
			section: "    observe:\n      - http: {path: \"/o/{{input.id}}\"}\n",
			want:    []want{{7, 22, "targets[0].observe[0].http.path", "unknown placeholder {{input.id}}"}},
		},
		{
			why:     "two sources with one name",
			section: "    observe:\n      - http: {path: /a}\n      - http: {path: /b}\n",
			want:    []want{{8, 9, "targets[0].observe[1]", `two observers are called "http"`}},
		},
		{
			why:     "a misspelt field is found with a suggestion",
			section: "    observe:\n      - http: {path: /a, itmes: data}\n",
			want:    []want{{7, 26, "targets[0].observe[0].http.itmes", `unknown field "itmes" (did you mean "items"?`}},
		},
		{
			why:     "a count reads the same number for every intent: no marker",
			section: "    observe:\n      - count: {sql: {dsn: \"sqlite:x.db\", query: \"SELECT count(*) FROM t WHERE n = {{marker}}\"}}\n",
			want:    []want{{7, 50, "targets[0].observe[0].count.sql.query", "uses {{marker}}: a count source"}},
		},
		{
			why:     "a count has one source",
			section: "    observe:\n      - count: {rows: true}\n",
			want:    []want{{7, 16, "targets[0].observe[0].count", "set sql (a query returning one number"}},
		},
		{
			why:     "an mcp read-back needs a server",
			section: "    observe:\n      - mcp: {tool: search_nodes}\n",
			want:    []want{{7, 14, "targets[0].observe[0].mcp.command", "missing: the server the tool is called on"}},
		},
		{
			why:     "a file's format",
			section: "    observe:\n      - file: {path: x.json, format: yaml}\n",
			want:    []want{{7, 38, "targets[0].observe[0].file.format", `unsupported format "yaml"`}},
		},
		{
			why:     "redis reads one of keys, stream and hash",
			section: "    observe:\n      - redis: {url: \"redis://127.0.0.1:6379\", keys: \"o:*\", hash: h}\n",
			want:    []want{{7, 16, "targets[0].observe[0].redis", "set one of keys"}},
		},
		{
			why:     "a stream is one key: {{marker}} in it is one error, at the stream",
			section: "    observe:\n      - redis: {url: \"redis://127.0.0.1:6379\", stream: \"s:{{marker}}\"}\n",
			want:    []want{{7, 56, "targets[0].observe[0].redis.stream", "{{marker}} can only be in keys: a stream is one key, and its entries that hold the marker are the intent's"}},
		},
		{
			why:     "pages: one way of paging",
			section: "    observe:\n      - http: {path: /a, pages: {link: true, page: p}}\n",
			want:    []want{{7, 33, "targets[0].observe[0].http.pages", "choose one of link, next, page or offset"}},
		},
		{
			why:     "settle cannot wait for more than its bound",
			section: "    observe:\n      - http: {path: /a}\n        settle: {quiet: 3s, within: 1s}\n",
			want:    []want{{8, 25, "targets[0].observe[0].settle.quiet", "longer than within"}},
		},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(withObserve(tc.section)))
			require.Error(t, err)
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, len(tc.want), "errors:\n%v", err)
			for i, w := range tc.want {
				e := errs[i]
				assert.Equal(t, w.path, e.Path, "error %d: %v", i, e)
				assert.Equal(t, []int{w.line, w.col}, []int{e.Line, e.Column}, "error %d: %v", i, e)
				assert.Contains(t, e.Msg, w.msg, "error %d", i)
				assert.NotContains(t, e.Error(), "s3cret")
			}
		})
	}
}

func TestObserveIsForHTTPTargets(t *testing.T) {
	_, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalCLI, "    operations:", "    observe:\n      - http: {path: /a}\n    operations:", 1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observe")
}

// TestSpecsWireObservers: each observe: source becomes an observer of the
// target's spec.
func TestSpecsWireObservers(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(withObserve(`    observe:
      - http: {path: "/v1/orders?search={{marker}}"}
      - sql: {dsn: "sqlite:{{state_dir}}/o.db", query: "SELECT id FROM o WHERE n = {{marker}}"}
`)))
	require.NoError(t, err)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	require.Len(t, specs, 1)
	assert.Len(t, specs[0].Observers, 2)
}

// Every kind of target may observe its effects in its own data: an sql
// source for any kind, passed through to its spec; an http read-back only
// for a kind reached at a URL, which the read-back is taken under.
func TestObserveOnEveryKind(t *testing.T) {
	const sqlSource = "    observe: [{sql: {dsn: \"sqlite:{{state_dir}}/o.db\", query: \"SELECT id FROM o WHERE note = {{marker}}\"}}]\n"
	const readBack = "    observe: [{http: {path: \"/orders?q={{marker}}\"}}]\n"
	for _, tc := range []struct {
		kind, yaml, after string
		readBack          bool
	}{
		{"http", minimal, "    url: http://127.0.0.1:8080\n", true},
		{"cli", minimalCLI, "    command: [./ordertool, --store, jsonl]\n", false},
		{"webhook", minimalWebhook, "    signature: {secret: whsec_minimal}\n", true},
		{"container", minimalContainer, "    image: shop:1.4\n", true},
		{"mcp", minimalMCP, "    command: [./mcpserver, --profile, correct]\n", false},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			require.Contains(t, tc.yaml, tc.after)
			f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(tc.yaml, tc.after, tc.after+sqlSource, 1)))
			require.NoError(t, err)
			specs, _, err := f.Specs()
			require.NoError(t, err)
			assert.Len(t, specs[0].Observers, 1, "the sql source reaches the %s target's spec", tc.kind)

			_, err = config.Parse("idemcheck.yaml", []byte(strings.Replace(tc.yaml, tc.after, tc.after+readBack, 1)))
			if tc.readBack {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, "targets[0].observe[0].http: a read-back is taken under the target's url, and this target has none")
			}
		})
	}
}

// TestObserveEverySource: each source of observe.Builtin is declared in
// the file, checked and wired into the target's spec, on an mcp target
// (which has no url: no read-back of its own API).
func TestObserveEverySource(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_REDIS", "redis://127.0.0.1:6379/0")
	yaml := strings.Replace(minimalMCP, "    command: [./mcpserver, --profile, correct]\n", `    command: [./mcpserver, --profile, correct]
    observe:
      - {name: db, object: entities, sql: {dsn: "sqlite:{{state_dir}}/o.db", query: "SELECT id FROM o WHERE note = {{marker}}"}}
      - name: graph
        object: entities
        file: {path: "{{state_dir}}/memory.json", format: jsonl, id: name}
      - mcp: {tool: search_nodes, arguments: {query: "{{marker}}", deep: [{x: "a {{marker}} b"}]}, items: entities, id: name, command: [./memory, "{{state_dir}}/memory.json"]}
      - redis: {url: "{{env.IDEMCHECK_TEST_REDIS}}", keys: "order:{{marker}}:*"}
      - count: {sql: {dsn: "sqlite:{{state_dir}}/o.db", query: "SELECT coalesce(sum(amount), 0) FROM t"}, unit: 500}
`, 1)
	f, err := config.Parse("idemcheck.yaml", []byte(yaml))
	require.NoError(t, err)
	obs := f.Targets[0].Base().Observe
	require.Len(t, obs, 5)
	assert.Equal(t, []string{"db", "graph", "mcp", "redis", "count"}, []string{obs[0].Name, obs[1].Name, obs[2].Name, obs[3].Name, obs[4].Name})
	assert.Equal(t, []string{"row", "item", "item", "entry", "row"}, []string{obs[0].Kind, obs[1].Kind, obs[2].Kind, obs[3].Kind, obs[4].Kind})
	specs, _, err := f.Specs()
	require.NoError(t, err)
	assert.Len(t, specs[0].Observers, 5)

	_, err = config.Parse("idemcheck.yaml", []byte(strings.Replace(yaml, "{{marker}} b", "{{key}} b", 1)))
	assert.ErrorContains(t, err, "targets[0].observe[2].mcp.arguments.deep[0].x: unknown placeholder {{key}}")
}

// TestObserveRedisOfADependency: a Redis observer reads a Redis that
// idemcheck starts for the target through its direct URL, not through
// the proxy that faults it; the dependency must be declared.
func TestObserveRedisOfADependency(t *testing.T) {
	yaml := func(deps string) string {
		return strings.Replace(withDeps(deps, `{REDIS_URL: "{{deps.cache.url}}"}`),
			"      - sql: {dsn: \"{{deps.db.direct_url}}\", query: \"SELECT id FROM payments WHERE note LIKE '%' || {{marker}} || '%'\"}\n",
			"      - redis: {url: \"{{deps.cache.direct_url}}\", stream: payments}\n", 1)
	}
	f, err := config.Parse("idemcheck.yaml", []byte(yaml("    dependencies:\n      cache: {protocol: redis}\n")))
	require.NoError(t, err)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	assert.Len(t, specs[0].Observers, 1)

	_, err = config.Parse("idemcheck.yaml", []byte(yaml("    dependencies:\n      db: {protocol: redis}\n")))
	assert.ErrorContains(t, err, `targets[0].observe[0].redis.url: {{deps.cache.direct_url}} needs a dependency called "cache"`)
}

// TestObserveWholeDSNFromEnv: {{env.NAME}} may be the whole DSN; its
// scheme is checked once it is filled in, never printed.
func TestObserveWholeDSNFromEnv(t *testing.T) {
	section := "    observe:\n      - sql: {dsn: \"{{env.IDEMCHECK_TEST_DSN}}\", query: \"SELECT id FROM o WHERE n = {{marker}}\"}\n"
	t.Setenv("IDEMCHECK_TEST_DSN", "postgres://app:s3cret@127.0.0.1:5432/shop")
	f, err := config.Parse("idemcheck.yaml", []byte(withObserve(section)))
	require.NoError(t, err, "a whole DSN from the environment")
	specs, _, err := f.Specs()
	require.NoError(t, err)
	assert.Len(t, specs[0].Observers, 1)

	t.Setenv("IDEMCHECK_TEST_DSN", "mysql://app:s3cret@127.0.0.1/shop")
	_, err = config.Parse("idemcheck.yaml", []byte(withObserve(section)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "targets[0].observe[0].sql.dsn: unsupported database (after filling in the environment)")
	assert.NotContains(t, err.Error(), "s3cret")
	assert.NotContains(t, err.Error(), "mysql")

	section = strings.Replace(section, "{{env.IDEMCHECK_TEST_DSN}}", "postgres://app:{{env.IDEMCHECK_TEST_PW}}@127.0.0.1:5432/shop", 1)
	t.Setenv("IDEMCHECK_TEST_PW", "s3cret")
	_, err = config.Parse("idemcheck.yaml", []byte(withObserve(section)))
	assert.NoError(t, err, "a password inside the DSN")
}

// TestCountNeedsNoMarker: a target that declares a count observer
// attributes its effects by delta, so its operations may carry no
// {{marker}} (a ledger API's body holds only numbers and ids); without
// one, an operation with no marker is still refused, and told of both
// ways out.
func TestCountNeedsNoMarker(t *testing.T) {
	numbersOnly := strings.Replace(minimal, `body: '{"description": "{{marker}}"}'`, `body: '{"from": 1, "to": 2, "amount": 50}'`, 1)
	withSource := func(source string) string {
		return strings.Replace(numbersOnly, "    url: http://127.0.0.1:8080\n", "    url: http://127.0.0.1:8080\n    observe:\n      - "+source+"\n", 1)
	}
	t.Run("http target with a count observer", func(t *testing.T) {
		f, err := config.Parse("idemcheck.yaml", []byte(withSource(`count: {sql: {dsn: "sqlite:{{state_dir}}/l.db", query: "SELECT id FROM transfers"}, rows: true}`)))
		require.NoError(t, err)
		specs, _, err := f.Specs()
		require.NoError(t, err)
		assert.Len(t, specs[0].Observers, 1)
	})
	t.Run("cli target with a count observer", func(t *testing.T) {
		yaml := strings.Replace(minimalCLI, `args: [create-order, --memo, "order {{marker}}"]`, `args: [create-order, --amount, "50"]`, 1)
		yaml = strings.Replace(yaml, "    operations:\n", "    observe:\n      - count: {sql: {dsn: \"sqlite:{{state_dir}}/o.db\", query: \"SELECT count(*) FROM orders\"}}\n    operations:\n", 1)
		_, err := config.Parse("idemcheck.yaml", []byte(yaml))
		require.NoError(t, err)
	})
	for _, tc := range []struct{ why, yaml, want string }{
		{"no observer: the fakes need the marker", numbersOnly, "targets[0].operations[0]: mutating operation \"charge\" does not use {{marker}}"},
		{"an observer that matches by marker does not attribute by delta", withSource(`sql: {dsn: "sqlite:x.db", query: "SELECT id FROM t WHERE note = {{marker}}"}`), "declares a count observer instead, to attribute by delta"},
		{"a safe operation without a marker", strings.Replace(numbersOnly, "mutating: true", "mutating: false", 1), "or declare a count observer to attribute by delta"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
