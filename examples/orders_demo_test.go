package examples_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/examples/orders"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/observe"
)

// ordersCases are the orders service's profiles, the score each is built
// for and exactly the checks its flaw fails.
var ordersCases = []struct {
	profile string
	score   int
	failing []string
	why     string
}{
	{"correct", 3, nil, "a unique index and one INSERT … ON CONFLICT: nothing found, under every fault it can take"},
	{"no-unique", 0, []string{"concurrent.duplicates", "crash.recovery", "key.mismatch", "retry.after-fault", "retry.late", "retry.sequential"}, "nothing conflicts: every retry inserts again"},
	{"check-then-insert", 0, []string{"concurrent.duplicates"}, "retries one at a time are replayed; a burst all inserts"},
}

// TestOrdersPostgres scores every profile of the orders service on a real
// PostgreSQL server, its effects counted by a SQL query on its table and,
// separately, by reading back its own list endpoint.
func TestOrdersPostgres(t *testing.T) {
	t.Parallel()
	pg := pgserver.Must(t)
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	sources := []string{"sql", "http"}
	var specs []harness.Spec
	for _, source := range sources {
		for _, tc := range ordersCases {
			dsn, err := pg.CreateDatabase(ctx, strings.ReplaceAll(source+"_"+tc.profile, "-", "_"))
			require.NoError(t, err)
			obs := observe.HTTPStarter(examples.OrdersHTTP())
			if source == "sql" {
				obs = observe.SQLStarter(examples.OrdersSQL(dsn))
			}
			specs = append(specs, examples.OrdersSpec(exe, source+"-orders-"+tc.profile, tc.profile, dsn, obs))
		}
	}
	results := verifyTogether(t, specs, harness.WithSeed(7))
	for i, tr := range results {
		source, tc := sources[i/len(ordersCases)], ordersCases[i%len(ordersCases)]
		t.Run(source+"/"+tc.profile, func(t *testing.T) {
			scoreOrders(t, tr, tc.score, tc.failing, source)
		})
	}
}

// TestOrdersSQLite is the fallback without PostgreSQL: the same service
// on a SQLite file in the target's state directory, observed by SQL.
func TestOrdersSQLite(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	dsn := "sqlite:{{state_dir}}/orders.db"
	specs := make([]harness.Spec, len(ordersCases))
	for i, tc := range ordersCases {
		specs[i] = examples.OrdersSpec(exe, "orders-"+tc.profile, tc.profile, dsn, observe.SQLStarter(examples.OrdersSQL(dsn)))
	}
	results := verifyTogether(t, specs, harness.WithSeed(7))
	for i, tc := range ordersCases {
		t.Run(tc.profile, func(t *testing.T) {
			scoreOrders(t, results[i], tc.score, tc.failing, "sql")
		})
	}
}

// scoreOrders asserts the score and failing checks of an orders service's
// result, and that source counted its effects.
func scoreOrders(t *testing.T, tr harness.TargetResult, score int, failingChecks []string, source string) {
	t.Helper()
	require.Empty(t, tr.Error, "the target could be tested")
	if !assert.Equal(t, failingChecks, failing(tr)) || !assert.Equal(t, score, tr.Score.Level) {
		for _, f := range tr.Findings {
			t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
		}
	}
	effects := 0
	for _, e := range tr.Record.Ledger {
		assert.Equal(t, source, e.Detail["source"], "every effect names the source that saw it")
		effects++
	}
	assert.Positive(t, effects, "the observer counted the orders")
	// Faults that act through a fake cannot be injected: there is none.
	for _, name := range []string{"downstream-503", "crash-before-effect", "crash-after-effect", "client-disconnect"} {
		assert.Contains(t, tr.Record.Unsupported, name, fmt.Sprintf("%s needs a fake", name))
		assert.Contains(t, tr.Record.UnsupportedWhy[name], "only by observers", "the record says why %s was not injected", name)
	}
	assert.NotContains(t, tr.Record.Unsupported, "crash-after-reply", "a started target can still be killed after its reply")
	_, ok := orders.Describe("correct")
	assert.True(t, ok)
}
