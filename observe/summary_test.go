package observe_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// The summary is the line an untestable target's message can quote: what
// the observer was asked, and what it found.
func TestSummary(t *testing.T) {
	dsn, db := sqliteDB(t)
	o := open(t, observe.Spec{Name: "orders-db", Kind: "order", Settle: failing,
		Source: observe.SQL{DSN: dsn, Query: `SELECT id FROM orders WHERE note = {{marker}}`}}, "")
	assert.Equal(t, "orders-db (sql) was not asked about any marker", o.Summary())
	ledger := fakes.NewLedger()
	for i := range 21 {
		require.NoError(t, o.Observe(context.Background(), ledger, fmt.Sprintf("idem-%016x", i)))
	}
	assert.Equal(t, "orders-db (sql) found no order for any of the 21 markers", o.Summary())
	assert.Equal(t, observe.Stats{Markers: 21, Reads: 21}, o.Stats())

	_, err := db.Exec(`INSERT INTO orders (amount, note) VALUES (1, ?)`, fmt.Sprintf("idem-%016x", 3))
	require.NoError(t, err)
	require.NoError(t, o.Observe(context.Background(), ledger, fmt.Sprintf("idem-%016x", 3)))
	assert.Equal(t, "orders-db (sql) found an order for 1 of the 21 markers", o.Summary())

	_, err = db.Exec(`DROP TABLE orders`)
	require.NoError(t, err)
	require.Error(t, o.Observe(context.Background(), ledger, m1))
	assert.Equal(t, "orders-db (sql) found an order for 1 of the 22 markers; 1 read failed (last: query: SQL logic error: no such table: orders (1))", o.Summary())
}
