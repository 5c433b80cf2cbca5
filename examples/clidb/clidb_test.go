package clidb_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

type answer struct {
	OK     bool   `json:"ok"`
	Effect string `json:"effect"`
	Error  string `json:"error"`
	Data   struct {
		ID int64 `json:"id"`
	} `json:"data"`
}

// add runs one add-expense, as the CLI adapter does: the key and the
// dry-run flag after the command's arguments.
func add(t *testing.T, profile, dsn, memo, key string, extra ...string) (int, answer) {
	t.Helper()
	args := []string{"--profile", profile, "--db", dsn, "--window", "200ms", "add-expense", "--amount", "1250", "--memo", memo}
	if key != "" {
		args = append(args, "--idempotency-key", key)
	}
	r := reftest.Run(t, append(args, extra...)...)
	var a answer
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &a), "stdout %q, stderr %q", r.Stdout, r.Stderr)
	return r.Code, a
}

// counter counts the expenses whose memo holds a marker, in the table.
func counter(t *testing.T, dsn string) func(string) int {
	o, err := observe.Spec{Name: "expenses-db", Kind: "expense", Settle: observe.Settle{Interval: 5 * time.Millisecond, Within: 10 * time.Second},
		Source: observe.SQL{DSN: dsn, Query: `SELECT id, amount FROM expenses WHERE memo LIKE '%' || {{marker}} || '%'`}}.Open(context.Background(), observe.Where{})
	require.NoError(t, err)
	t.Cleanup(func() { o.Close() })
	return func(marker string) int {
		ledger := fakes.NewLedger()
		require.NoError(t, o.Observe(context.Background(), ledger, marker))
		return len(ledger.Effects())
	}
}

func databases() map[string]func(*testing.T) string {
	return map[string]func(*testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "expenses.db") },
		"postgres": func(t *testing.T) string { return reftest.Postgres(t) },
	}
}

// A retry after the first call ended is replayed by both; four calls that
// overlap (four processes) make one expense with correct, and more with
// check-then-insert (one for each call that looked the key up before the
// first insert: all four, unless the processes start far apart).
func TestOverlappingCalls(t *testing.T) {
	for db, newDSN := range databases() {
		for _, tc := range []struct {
			profile    string
			duplicates bool
		}{{"correct", false}, {"check-then-insert", true}} {
			t.Run(db+"/"+tc.profile, func(t *testing.T) {
				dsn := newDSN(t)
				count := counter(t, dsn)
				m1 := "idem-00000000000000f1"
				code, first := add(t, tc.profile, dsn, "lunch "+m1, "k1")
				require.Equal(t, 0, code)
				assert.Equal(t, "created", first.Effect)
				code, again := add(t, tc.profile, dsn, "lunch "+m1, "k1")
				assert.Equal(t, [2]any{0, "noop"}, [2]any{code, again.Effect})
				assert.Equal(t, first.Data.ID, again.Data.ID)
				assert.Equal(t, 1, count(m1), "a retry once the first call ended")

				m2 := "idem-00000000000000f2"
				var wg sync.WaitGroup
				for range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						code, a := add(t, tc.profile, dsn, "taxi "+m2, "k2")
						assert.Equal(t, 0, code, "%+v", a)
					}()
				}
				wg.Wait()
				if n := count(m2); tc.duplicates {
					assert.Greater(t, n, 1, "four calls at once")
				} else {
					assert.Equal(t, 1, n, "four calls at once")
				}
			})
		}
	}
}

func TestRefusals(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "expenses.db")
	count := counter(t, dsn)
	m := "idem-00000000000000f3"
	code, a := add(t, "correct", dsn, "book "+m, "")
	assert.Equal(t, [2]any{2, "key_required"}, [2]any{code, a.Error})
	code, a = add(t, "correct", dsn, "book "+m, "k1", "--dry-run")
	assert.Equal(t, [2]any{0, "would_create"}, [2]any{code, a.Effect})
	assert.Zero(t, count(m), "the observer reads a database not created yet as empty")
	code, _ = add(t, "correct", dsn, "book "+m, "k1")
	require.Equal(t, 0, code)
	code, a = add(t, "correct", dsn, "another book "+m, "k1")
	assert.Equal(t, [2]any{1, "key_mismatch"}, [2]any{code, a.Error})
	assert.Equal(t, 1, count(m))
	r := reftest.Run(t, "--profile", "correct", "--db", "mysql://h/db", "add-expense", "--amount", "1", "--memo", "x", "--idempotency-key", "k")
	assert.Equal(t, 2, r.Code, "a database it cannot use: bad usage")
	r = reftest.Run(t, "--profile", "correct", "--db", "postgres://u@127.0.0.1:1/db?connect_timeout=2", "add-expense", "--amount", "1", "--memo", "x", "--idempotency-key", "k")
	assert.Equal(t, 75, r.Code, "a database that does not answer: try again later")
}
