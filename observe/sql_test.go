package observe_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
)

// open opens spec as the engine does, for a target whose state directory
// is dir.
func open(t *testing.T, spec observe.Spec, dir string) *observe.Observer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o, err := spec.Open(ctx, observe.Where{Env: &harness.Env{StateDir: dir}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Close()) })
	return o
}

// quick settles at once: one read, and a read that fails is read again
// for up to 10s (a loaded machine).
var quick = observe.Settle{Interval: time.Millisecond, Within: 10 * time.Second}

// failing is for a read expected to fail: given up after 2s, long enough
// for the first read to fail for its own reason, not for the deadline.
var failing = observe.Settle{Interval: 5 * time.Millisecond, Within: 2 * time.Second}

// failingFile is failing for a file, whose read takes no deadline: the
// bound only stops the retries.
var failingFile = observe.Settle{Interval: time.Millisecond, Within: 100 * time.Millisecond}

// The observer's query runs read-only, whatever it says: a query that
// tries to write fails and the table is unchanged, on SQLite and on
// PostgreSQL; the same observer with a plain SELECT reads.
func TestSQLObserverNeverWrites(t *testing.T) {
	ctx := context.Background()
	pgDSN := func(t *testing.T) (string, *sql.DB) {
		dsn, db := postgres(t)
		_, err := db.Exec(`CREATE TABLE orders (id SERIAL PRIMARY KEY, amount INT, note TEXT)`)
		require.NoError(t, err)
		return dsn, db
	}
	for _, tc := range []struct {
		db      string
		open    func(t *testing.T) (string, *sql.DB)
		writing string
		refusal string
	}{
		{"sqlite", sqliteDB, `INSERT INTO orders (amount, note) VALUES (1, {{marker}}) RETURNING id`, "readonly database"},
		{"postgres", pgDSN, `WITH x AS (INSERT INTO orders (amount, note) VALUES (1, {{marker}}) RETURNING id) SELECT id FROM x`, "read-only transaction"},
	} {
		t.Run(tc.db, func(t *testing.T) {
			dsn, db := tc.open(t)
			o := open(t, observe.Spec{Name: "orders-db", Settle: failing, Source: observe.SQL{DSN: dsn, Query: tc.writing}}, "")
			err := o.Observe(ctx, fakes.NewLedger(), m1)
			require.Error(t, err, "a query that writes must fail")
			assert.Contains(t, err.Error(), tc.refusal)
			assert.Contains(t, err.Error(), "observer orders-db (sql)")
			var n int
			require.NoError(t, db.QueryRow(`SELECT count(*) FROM orders`).Scan(&n))
			assert.Zero(t, n, "nothing was written")

			_, err = db.Exec(`INSERT INTO orders (amount, note) VALUES (7, 'order ` + m1 + `')`)
			require.NoError(t, err)
			reader := open(t, observe.Spec{Name: "orders-db", Settle: quick,
				Source: observe.SQL{DSN: dsn, Query: `SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'`}}, "")
			ledger := fakes.NewLedger()
			require.NoError(t, reader.Observe(ctx, ledger, m1))
			assert.Len(t, ledger.Effects(), 1, "a plain SELECT reads")
		})
	}
}

// {{env.NAME}} may be the whole DSN, or a part of it; the scheme is
// checked once it is expanded, and an unset variable is named.
func TestSQLDSNFromTheEnvironment(t *testing.T) {
	dsn, db := sqliteDB(t)
	_, err := db.Exec(`INSERT INTO orders (amount, note) VALUES (3, ?)`, "order "+m2)
	require.NoError(t, err)
	query := `SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'`
	t.Setenv("IDEMCHECK_TEST_DB_URL", dsn)
	t.Setenv("IDEMCHECK_TEST_DB_DIR", filepath.Dir(dsn[len("sqlite:"):]))
	for _, whole := range []string{"{{env.IDEMCHECK_TEST_DB_URL}}", "sqlite:{{env.IDEMCHECK_TEST_DB_DIR}}/orders.db", "sqlite:{{state_dir}}/orders.db"} {
		src := observe.SQL{DSN: whole, Query: query}
		require.NoError(t, src.Validate(), whole)
		o := open(t, observe.Spec{Name: "db", Settle: quick, Source: src}, filepath.Dir(dsn[len("sqlite:"):]))
		ledger := fakes.NewLedger()
		require.NoError(t, o.Observe(context.Background(), ledger, m2), whole)
		assert.Len(t, ledger.Effects(), 1, whole)
	}

	_, err = observe.Spec{Source: observe.SQL{DSN: "{{env.IDEMCHECK_TEST_UNSET_DB}}", Query: query}}.Open(context.Background(), observe.Where{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "IDEMCHECK_TEST_UNSET_DB is not set")

	t.Setenv("IDEMCHECK_TEST_DB_URL", "mysql://u:secret@h/db")
	_, err = observe.Spec{Source: observe.SQL{DSN: "{{env.IDEMCHECK_TEST_DB_URL}}", Query: query}}.Open(context.Background(), observe.Where{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unsupported database", "the expanded scheme is checked")
	assert.NotContains(t, err.Error(), "secret")

	expanded, err := observe.ExpandDSN("{{env.IDEMCHECK_TEST_DB_URL}}", nil)
	require.NoError(t, err)
	assert.Equal(t, "mysql://u:secret@h/db", expanded)
	assert.Error(t, observe.SQL{DSN: "mysql://h/db", Query: query}.Validate(), "a literal DSN is checked before any target starts")
}

// A SQLite database a command-line tool creates on its first call is no
// rows until it exists, then read like any other.
func TestSQLiteFileThatAppearsLater(t *testing.T) {
	dir := t.TempDir()
	o := open(t, observe.Spec{Name: "tool-db", Settle: quick,
		Source: observe.SQL{DSN: "sqlite:{{state_dir}}/tool.db", Query: `SELECT id FROM orders WHERE note = {{marker}}`}}, dir)
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	assert.Empty(t, ledger.Effects())
	assert.Contains(t, o.Summary(), filepath.Join(dir, "tool.db")+" never existed")

	db, err := sql.Open("sqlite", filepath.Join(dir, "tool.db"))
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`PRAGMA journal_mode=WAL; CREATE TABLE orders (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO orders (note) VALUES ('` + m1 + `')`)
	require.NoError(t, err)
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	assert.Len(t, ledger.Effects(), 1, "read once created, in WAL mode, while the writer holds it open")
}
