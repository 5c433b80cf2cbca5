package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/refexe"
)

// ordersTwoObservers is a configuration of the orders service whose
// orders are seen twice: by a query on its table and by its own list
// endpoint; object (empty for none) names what both see.
func ordersTwoObservers(t *testing.T, profile, object string) string {
	t.Helper()
	exe := refexe.Path(t)
	obj := ""
	if object != "" {
		obj = "        object: " + object + "\n"
	}
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: orders
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%q, "__example", "orders", "--profile", %q, "--db", "sqlite:{{state_dir}}/orders.db", "--listen", "127.0.0.1:{{port}}"]
      ready: {path: /healthz}
    dry_run: {query: dry_run}
    observe:
      - name: orders-db
        kind: order
%s        sql: {dsn: "sqlite:{{state_dir}}/orders.db", query: "SELECT 'ord_' || id FROM orders WHERE note LIKE '%%' || {{marker}} || '%%'"}
      - name: orders-api
        kind: order
%s        http: {path: "/v1/orders?search={{marker}}", items: data}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /v1/orders
        body: '{"customer":"{{input.customer}}","amount":{{input.amount}},"note":"order {{marker}}"}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 999]}
`, exe, profile, obj, obj)), 0o644))
	return cfg
}

// TestTwoObserversOfOneTableCountOnce: a query on the orders table and a
// read-back of the orders API, declared as observers of one object, see
// each order once, with both as evidence: the run counts as many effects
// as orders. Declared as observers of different things, every order is
// two effects. Either way the correct service scores 3: a check compares
// an observer's effects with its own.
func TestTwoObserversOfOneTableCountOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	effects := map[string]float64{}
	t.Cleanup(func() { // once both runs are over
		require.NotZero(t, effects["orders"])
		assert.Equal(t, 2*effects["orders"], effects[""], "observers of one object count each order once; of two things, twice")
	})
	for _, object := range []string{"orders", ""} {
		t.Run("object="+object, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			code, rep := runReport(t, ctx, ordersTwoObservers(t, "correct", object))
			tr := targetReport(t, rep)
			assert.Equal(t, 3.0, tr["score"], "score; error: %v; findings: %v", tr["error"], tr["findings"])
			assert.Equal(t, exitOK, code)
			assert.Empty(t, tr["findings"])
			n, _ := tr["summary"].(map[string]any)["effects"].(float64)
			mu.Lock()
			effects[object] = n
			mu.Unlock()
			obs := fmt.Sprint(tr["observers"])
			assert.Contains(t, obs, "orders-db (sql) found an order for")
			assert.Contains(t, obs, "orders-api (http) found an order for")
		})
	}
}

// TestObserverThatCannotReadIsUntestable: an observer whose query fails
// stops the run with exit 3, naming the observer, its source and why.
func TestObserverThatCannotReadIsUntestable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := ordersTwoObservers(t, "correct", "orders")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(b), "FROM orders WHERE", "FROM no_such_table WHERE", 1)), 0o644))
	code, rep := runReport(t, ctx, cfg)
	tr := targetReport(t, rep)
	assert.Equal(t, exitHarness, code)
	assert.Contains(t, tr["error"], "observer orders-db (sql)")
	assert.Contains(t, tr["error"], "no_such_table")
}

// TestFileObserverOnAFileThatIsNotJSON: a file observer whose file is not
// a JSON document stops the run with exit 3, naming the observer, its
// source and why, as a failing query does.
func TestFileObserverOnAFileThatIsNotJSON(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := ordersTwoObservers(t, "correct", "orders")
	bad := filepath.Join(t.TempDir(), "orders.json")
	require.NoError(t, os.WriteFile(bad, []byte("orders: not JSON at all\n"), 0o644))
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.Contains(l, "sql: {dsn:") {
			lines[i] = fmt.Sprintf("        file: {path: %q, format: json, items: orders, id: id}", bad)
		}
	}
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Join(lines, "\n")), 0o644))
	code, rep := runReport(t, ctx, cfg)
	tr := targetReport(t, rep)
	assert.Equal(t, exitHarness, code, "findings: %v", tr["findings"])
	assert.Contains(t, tr["error"], "observer orders-db (file)")
	assert.Contains(t, strings.ToLower(fmt.Sprint(tr["error"])), "json")
}

// TestObserversWhoseIdentitiesDisagreeAreUntestable: a query that gives
// an order's bare id and a read-back that gives "ord_" and the id,
// declared as observers of one object, would count every order twice:
// the run stops with exit 3, naming both and their ids. The same two with
// agreeing identities are TestTwoObserversOfOneTableCountOnce.
func TestObserversWhoseIdentitiesDisagreeAreUntestable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := ordersTwoObservers(t, "correct", "orders")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(b), "SELECT 'ord_' || id FROM", "SELECT id FROM", 1)), 0o644))
	code, rep := runReport(t, ctx, cfg)
	tr := targetReport(t, rep)
	assert.Equal(t, exitHarness, code, "findings: %v", tr["findings"])
	msg := fmt.Sprint(tr["error"])
	assert.Contains(t, msg, "observers orders-api and orders-db both observe orders, but name what they saw of one intent differently (orders-api: ord_")
	assert.Contains(t, msg, "Make both give the same identity")
}

// TestMCPReadBackToolErrorIsUntestable: an mcp observer whose tool
// answers isError stops the run with exit 3, naming the observer, the
// tool and what it answered.
func TestMCPReadBackToolErrorIsUntestable(t *testing.T) {
	t.Parallel()
	bin := memoryServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := ordersTwoObservers(t, "correct", "")
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.Contains(l, "http: {path:") {
			// add_observations to an entity that does not exist: an error.
			lines[i] = fmt.Sprintf(`        mcp: {tool: add_observations, arguments: {observations: [{entityName: "nobody {{marker}}", contents: [x]}]}, command: [%q, "-memory", "{{state_dir}}/graph.json"]}`, bin)
		}
	}
	require.NoError(t, os.WriteFile(cfg, []byte(strings.Join(lines, "\n")), 0o644))
	code, rep := runReport(t, ctx, cfg)
	tr := targetReport(t, rep)
	assert.Equal(t, exitHarness, code, "findings: %v", tr["findings"])
	msg := fmt.Sprint(tr["error"])
	assert.Contains(t, msg, "observer orders-api (mcp): tool add_observations answered an error")
	assert.Contains(t, msg, "nobody idem-", "what it answered, with the marker it was asked about")
}
