package observe_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// ledgerDB is a table of transactions that carries no caller text: only
// numbers, and a key in a column of its own.
func ledgerDB(t *testing.T) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(`CREATE TABLE transactions (id INTEGER PRIMARY KEY, idempotency_key TEXT UNIQUE, amount INT NOT NULL)`)
	require.NoError(t, err)
	return "sqlite:" + path, db
}

func post(t *testing.T, db *sql.DB, amounts ...int) {
	t.Helper()
	for _, a := range amounts {
		_, err := db.Exec(`INSERT INTO transactions (amount) VALUES (?)`, a)
		require.NoError(t, err)
	}
}

// Intents one at a time: what changed between an intent's baseline and
// after its attempts is its own, however the source is read.
func TestCountAttributesByDelta(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		why   string
		count observe.Count
		ids   func(first, second int) []string
	}{
		{"a count", observe.Count{SQL: &observe.SQL{Query: `SELECT count(*) FROM transactions`}}, nil},
		{"a sum, in units of the amount each intent moves", observe.Count{SQL: &observe.SQL{Query: `SELECT coalesce(sum(amount), 0) FROM transactions`}, Unit: 500}, nil},
		{"rows without markers, by their own identity", observe.Count{SQL: &observe.SQL{Query: `SELECT id FROM transactions`}, Rows: true},
			func(first, second int) []string { return []string{fmt.Sprint(first), fmt.Sprint(second)} }},
	} {
		dsn, db := ledgerDB(t)
		post(t, db, 500) // before the run: never anyone's
		tc.count.SQL.DSN = dsn
		o := open(t, observe.Spec{Name: "ledger-db", Settle: quick, Source: tc.count}, "")
		assert.Equal(t, observe.ByDelta, o.Attribution(), tc.why)
		assert.True(t, o.Serial(), tc.why)
		ledger := fakes.NewLedger()

		// Intent 1: one transaction, seen after its first attempt, and
		// not again after its retry.
		post(t, db, 500)
		require.NoError(t, o.Observe(ctx, ledger, m1), tc.why)
		require.NoError(t, o.Observe(ctx, ledger, m1), tc.why)
		require.Len(t, ledger.ByMarker(m1), 1, tc.why)
		e := ledger.ByMarker(m1)[0]
		assert.Equal(t, observe.ByDelta, e.Detail[observe.DetailAttribution], tc.why)
		assert.Equal(t, "count", e.Detail[observe.DetailSource], tc.why)

		// Intent 2: its retry posted again, a duplicate.
		require.NoError(t, o.Begin(ctx, m2), tc.why)
		post(t, db, 500)
		require.NoError(t, o.Observe(ctx, ledger, m2), tc.why)
		post(t, db, 500)
		require.NoError(t, o.Observe(ctx, ledger, m2), tc.why)
		assert.Len(t, ledger.ByMarker(m2), 2, tc.why)
		assert.Len(t, ledger.ByMarker(m1), 1, "intent 2's effects are not intent 1's: "+tc.why)
		if tc.ids != nil {
			var got []string
			for _, e := range ledger.ByMarker(m2) {
				got = append(got, e.ID)
			}
			assert.Equal(t, tc.ids(3, 4), got, tc.why)
		}
		assert.Equal(t, "ledger-db (count) saw a change for 2 of the 2 intents (attributed by delta)", o.Summary(), tc.why)
	}
}

// Begin takes the baseline when the intent starts: a change between two
// intents is no one's. Without Begin the baseline is the last reading, and
// the change goes to the next intent.
func TestCountBeginTakesTheBaseline(t *testing.T) {
	ctx := context.Background()
	dsn, db := ledgerDB(t)
	o := open(t, observe.Spec{Name: "ledger-db", Settle: quick, Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT count(*) FROM transactions`}}}, "")
	ledger := fakes.NewLedger()
	post(t, db, 1)
	require.NoError(t, o.Begin(ctx, m1))
	require.NoError(t, o.Observe(ctx, ledger, m1))
	assert.Empty(t, ledger.ByMarker(m1), "the row came before the intent began")
	post(t, db, 1)
	require.NoError(t, o.Observe(ctx, ledger, m2))
	assert.Len(t, ledger.ByMarker(m2), 1, "no Begin: the change since the last reading")
}

// A marker observer attributes by marker, needs no order, and Begin does
// nothing.
func TestMarkerObserversAreNotSerial(t *testing.T) {
	dsn, _ := sqliteDB(t)
	o := open(t, observe.Spec{Source: observe.SQL{DSN: dsn, Query: `SELECT id FROM orders WHERE note = {{marker}}`}}, "")
	assert.Equal(t, observe.ByMarker, o.Attribution())
	assert.False(t, o.Serial())
	assert.NoError(t, o.Begin(context.Background(), m1))
}

func TestCountOverHTTP(t *testing.T) {
	var total, listed int
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/stats":
			fmt.Fprintf(w, `{"transactions":{"total":%d}}`, total)
		case "/v1/transactions":
			var items []string
			for i := 1; i <= listed; i++ {
				items = append(items, fmt.Sprintf(`{"id":"tx_%d","amount":5}`, i))
			}
			fmt.Fprintf(w, `{"data":[%s]}`, strings.Join(items, ","))
		}
	})
	srv := httptest.NewServer(api)
	defer srv.Close()
	ctx := context.Background()

	byValue := open(t, observe.Spec{Name: "stats", Settle: quick, Source: observe.Count{HTTP: &observe.HTTP{URL: srv.URL + "/v1/stats", Value: "transactions.total"}}}, "")
	byRows := open(t, observe.Spec{Name: "list", Settle: quick, Source: observe.Count{HTTP: &observe.HTTP{URL: srv.URL + "/v1/transactions", Items: "data"}}}, "")
	ledger := fakes.NewLedger()
	total, listed = 2, 2
	require.NoError(t, byValue.Observe(ctx, ledger, m1))
	require.NoError(t, byRows.Observe(ctx, ledger, m1))
	var got []string
	for _, e := range ledger.ByMarker(m1) {
		got = append(got, e.Fake+" "+e.ID)
	}
	assert.Equal(t, []string{"stats " + m1 + "+1", "stats " + m1 + "+2", "list tx_1", "list tx_2"}, got)
}

func TestCountErrors(t *testing.T) {
	ctx := context.Background()
	dsn, db := ledgerDB(t)
	for _, tc := range []struct {
		why   string
		count observe.Count
		want  string
	}{
		{"no source", observe.Count{}, "set one of sql"},
		{"a marker in a count's query", observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT count(*) FROM transactions WHERE amount = {{marker}}`}}, "takes no {{marker}}"},
		{"a negative unit", observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT 1`}, Unit: -1}, "above zero"},
		{"rows with a unit", observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id FROM transactions`}, Rows: true, Unit: 2}, "unit counts a number"},
	} {
		assert.ErrorContains(t, tc.count.Validate(), tc.want, tc.why)
		_, err := observe.Spec{Source: tc.count}.Open(ctx, observe.Where{})
		assert.ErrorContains(t, err, tc.want, tc.why)
	}
	_, err := observe.Spec{Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id, amount FROM transactions`}}}.Open(ctx, observe.Where{})
	assert.ErrorContains(t, err, "a count returns one number", "the first reading is taken at once")

	o := open(t, observe.Spec{Name: "ledger-db", Settle: failing, Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT coalesce(sum(amount), 0) FROM transactions`}, Unit: 500}}, "")
	post(t, db, 250)
	err = o.Observe(ctx, fakes.NewLedger(), m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observer ledger-db (count): the number went from 0 to 250, not a whole number of units of 500")
}
