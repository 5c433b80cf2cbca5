package config_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
)

// withDeps is an http target idemcheck starts, with deps as its
// dependencies block and env as its start environment.
func withDeps(deps, env string) string {
	return `version: 1
targets:
  - name: pay
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: ["./pay", "--listen", "127.0.0.1:{{port}}"]
      env: ` + env + `
` + deps + `    observe:
      - sql: {dsn: "{{deps.db.direct_url}}", query: "SELECT id FROM payments WHERE note LIKE '%' || {{marker}} || '%'"}
    operations:
      - name: pay
        mutating: true
        method: POST
        path: /v1/payments
        body: '{"note": "{{marker}}"}'
`
}

// TestDependenciesParse: a throwaway database and one at an address,
// handed to the target by placeholder, become the spec's dependencies;
// the dependency faults join the defaults.
func TestDependenciesParse(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(withDeps(`    dependencies:
      db: {protocol: postgres}
      cache: {protocol: redis, url: "redis://127.0.0.1:6379/0", attribute: in-flight}
`, `{DATABASE_URL: "{{deps.db.url}}", REDIS_ADDR: "{{deps.cache.addr}}"}`)))
	require.NoError(t, err)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	require.Len(t, specs, 1)
	assert.Equal(t, []harness.Dependency{
		{Name: "cache", Protocol: "redis", URL: "redis://127.0.0.1:6379/0", InFlight: true},
		{Name: "db", Protocol: "postgres"},
	}, specs[0].Dependencies)
	var names []string
	for _, fs := range f.Faults {
		names = append(names, fs.Name)
	}
	for _, n := range harness.DependencyFaultNames {
		assert.Contains(t, names, n, "a file whose target declares a dependency tries the dependency faults by default")
	}

	// Without a dependency, the defaults are as before.
	f, err = config.Parse("idemcheck.yaml", []byte(minimal))
	require.NoError(t, err)
	for _, fs := range f.Faults {
		assert.NotContains(t, harness.DependencyFaultNames, fs.Name)
	}
}

// TestDependencyAttributionDefault: a target whose requests carry no
// marker, its effects counted by delta, has its dependency's statements
// attributed to the intent in flight unless it says marker; a target
// whose requests carry a marker keeps marker attribution.
func TestDependencyAttributionDefault(t *testing.T) {
	markerless := func(attr string) string {
		return `version: 1
targets:
  - name: ledger
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: ["./ledger", "--listen", "127.0.0.1:{{port}}"]
      env: {DATABASE_URL: "{{deps.db.url}}"}
    dependencies:
      db: {protocol: postgres` + attr + `}
    observe:
      - count:
          sql: {dsn: "{{deps.db.direct_url}}", query: "SELECT id FROM transfers"}
          rows: true
    operations:
      - name: transfer
        mutating: true
        method: POST
        path: /transfers
        body: '{"amount": {{input.amount}}}'
        inputs: {amount: {int: [1, 9]}}
`
	}
	for _, tc := range []struct {
		why      string
		yaml     string
		inFlight bool
	}{
		{"no marker, counted by delta: in-flight by default", markerless(""), true},
		{"no marker, marker asked for", markerless(", attribute: marker"), false},
		{"a marker in the requests: marker by default", withDeps("    dependencies:\n      db: {protocol: postgres}\n", `{DATABASE_URL: "{{deps.db.url}}"}`), false},
	} {
		t.Run(tc.why, func(t *testing.T) {
			f, err := config.Parse("idemcheck.yaml", []byte(tc.yaml))
			require.NoError(t, err)
			specs, _, err := f.Specs()
			require.NoError(t, err)
			require.Len(t, specs[0].Dependencies, 1)
			assert.Equal(t, tc.inFlight, specs[0].Dependencies[0].InFlight)
		})
	}
}

// TestDependencyErrors: each mistake is refused at load time with its
// line, column and field.
func TestDependencyErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		deps string
		env  string
		want want
	}{
		{"a protocol no proxy speaks", "    dependencies:\n      db: {protocol: mysql}\n", `{}`,
			want{10, 22, "targets[0].dependencies.db.protocol", `unsupported protocol "mysql"`}},
		{"a protocol is required", "    dependencies:\n      db: {url: \"postgres://a@127.0.0.1:5432/x\"}\n", `{}`,
			want{10, 11, "targets[0].dependencies.db.protocol", "missing: what the dependency speaks"}},
		{"a URL of another protocol", "    dependencies:\n      db: {protocol: postgres, url: \"redis://127.0.0.1:6379/0\"}\n", `{}`,
			want{10, 37, "targets[0].dependencies.db.url", "a postgres URL starts with postgres://, not redis://"}},
		{"TLS to Redis", "    dependencies:\n      db: {protocol: redis, url: \"rediss://127.0.0.1:6379/0\"}\n", `{}`,
			want{10, 34, "targets[0].dependencies.db.url", "rediss:// asks for TLS"}},
		{"a placeholder of an undeclared dependency", "    dependencies:\n      db: {protocol: postgres}\n", `{DATABASE_URL: "{{deps.main.url}}"}`,
			want{8, 27, "targets[0].start.env.DATABASE_URL", `needs a dependency called "main"`}},
		{"a misspelt dependency", "    dependencies:\n      cache: {protocol: redis}\n", `{REDIS_URL: "{{deps.cahce.url}}"}`,
			want{8, 24, "targets[0].start.env.REDIS_URL", `{{deps.cahce.url}} names no declared dependency: did you mean {{deps.cache.url}}? (the target declares cache)`}},
		{"a field a dependency does not have", "    dependencies:\n      db: {protocol: postgres}\n", `{DATABASE_URL: "{{deps.db.dsn}}"}`,
			want{8, 27, "targets[0].start.env.DATABASE_URL", "unknown placeholder {{deps.db.dsn}}"}},
		{"an unknown attribution", "    dependencies:\n      db: {protocol: postgres, attribute: guess}\n", `{}`,
			want{10, 43, "targets[0].dependencies.db.attribute", `unknown attribution "guess"`}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(withDeps(tc.deps, tc.env)))
			require.Error(t, err)
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.NotEmpty(t, errs)
			e := errs[0]
			assert.Equal(t, tc.want.path, e.Path, "%v", err)
			assert.Equal(t, []int{tc.want.line, tc.want.col}, []int{e.Line, e.Column}, "%v", err)
			assert.Contains(t, e.Msg, tc.want.msg)
		})
	}
	// The observer's DSN names a declared dependency too.
	_, err := config.Parse("idemcheck.yaml", []byte(withDeps("", `{}`)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `needs a dependency called "db"`)
}

// TestDependencyURLFromEnv: a dependency's url may be an {{env.NAME}}
// placeholder, the whole URL included; it is checked once filled in,
// and its value is never repeated in a message.
func TestDependencyURLFromEnv(t *testing.T) {
	deps := "    dependencies:\n      db: {protocol: postgres}\n      cache: {protocol: redis, url: \"{{env.IDEMCHECK_TEST_CACHE}}\"}\n"
	t.Setenv("IDEMCHECK_TEST_CACHE", "redis://:s3cret@127.0.0.1:6399/0")
	f, err := config.Parse("idemcheck.yaml", []byte(withDeps(deps, `{}`)))
	require.NoError(t, err, "a whole URL from the environment")
	specs, _, err := f.Specs()
	require.NoError(t, err)
	require.Len(t, specs[0].Dependencies, 2)
	assert.Equal(t, "redis://:s3cret@127.0.0.1:6399/0", specs[0].Dependencies[0].URL)

	t.Setenv("IDEMCHECK_TEST_CACHE", "postgres://app:s3cret@127.0.0.1:5432/x")
	_, err = config.Parse("idemcheck.yaml", []byte(withDeps(deps, `{}`)))
	require.ErrorContains(t, err, "targets[0].dependencies.cache.url: a redis URL starts with redis://, not postgres://")
	assert.NotContains(t, err.Error(), "s3cret")

	t.Setenv("IDEMCHECK_TEST_CACHE", "127.0.0.1:6399")
	_, err = config.Parse("idemcheck.yaml", []byte(withDeps(deps, `{}`)))
	require.ErrorContains(t, err, "targets[0].dependencies.cache.url: does not parse as scheme://host:port/… (after filling in the environment)")
}

// TestAnObserverReadsItsDependencyDirectly: an observer's database is
// the dependency itself ({{deps.NAME.direct_url}}); the fault proxy in
// front of it ({{deps.NAME.url}}, {{deps.NAME.addr}}) would hold the
// observer's reads in the faults armed for the target, so naming it there
// is an error at the observer's field.
func TestAnObserverReadsItsDependencyDirectly(t *testing.T) {
	deps := "    dependencies:\n      db: {protocol: postgres}\n      cache: {protocol: redis}\n"
	for _, tc := range []struct {
		why, observer, path, msg string
		col                      int
	}{
		{"sql through the proxy", `- sql: {dsn: "{{deps.db.url}}", query: "SELECT id FROM payments WHERE note LIKE '%' || {{marker}} || '%'"}`,
			"targets[0].observe[0].sql.dsn", "{{deps.db.url}} is the fault proxy in front of the dependency", 20},
		{"redis through the proxy's address", `- redis: {url: "redis://{{deps.cache.addr}}/0", keys: "pay:*"}`,
			"targets[0].observe[0].redis.url", "an observer reads the database itself, {{deps.cache.direct_url}}", 22},
	} {
		t.Run(tc.why, func(t *testing.T) {
			src := strings.Replace(withDeps(deps, `{}`), `- sql: {dsn: "{{deps.db.direct_url}}", query: "SELECT id FROM payments WHERE note LIKE '%' || {{marker}} || '%'"}`, tc.observer, 1)
			_, err := config.Parse("idemcheck.yaml", []byte(src))
			require.Error(t, err)
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, 1, "%v", err)
			assert.Equal(t, tc.path, errs[0].Path, "%v", err)
			assert.Equal(t, []int{13, tc.col}, []int{errs[0].Line, errs[0].Column}, "%v", err)
			assert.Contains(t, errs[0].Msg, tc.msg)
		})
	}
	_, err := config.Parse("idemcheck.yaml", []byte(withDeps(deps, `{}`)))
	require.NoError(t, err, "{{deps.db.direct_url}} is what an observer reads")

	// An observer of a dependency not declared is told to declare one of
	// its own protocol.
	src := strings.Replace(withDeps("", `{}`), `- sql: {dsn: "{{deps.db.direct_url}}", query: "SELECT id FROM payments WHERE note LIKE '%' || {{marker}} || '%'"}`,
		`- redis: {url: "{{deps.cache.direct_url}}", keys: "pay:*"}`, 1)
	_, err = config.Parse("idemcheck.yaml", []byte(src))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "e.g. dependencies: {cache: {protocol: redis}}")
	_, err = config.Parse("idemcheck.yaml", []byte(withDeps("", `{}`)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "e.g. dependencies: {db: {protocol: postgres}}")
	assert.NotContains(t, err.Error(), "(or redis)")
}
