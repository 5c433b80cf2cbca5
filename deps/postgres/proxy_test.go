package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
)

// TestPassThrough: statements of both protocols, rows and transactions go
// through the proxy and come back as they would from the database.
func TestPassThrough(t *testing.T) {
	direct, proxied, p := setup(t)
	c := connect(t, proxied)
	ctx := ctxT(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, err := c.Exec(ctx, `INSERT INTO t (key, note) VALUES ($1, $2)`, m.mode, "k-"+m.name, "hello")
			require.NoError(t, err)
			var note string
			require.NoError(t, c.QueryRow(ctx, `SELECT note FROM t WHERE key = $1`, m.mode, "k-"+m.name).Scan(&note))
			assert.Equal(t, "hello", note)
			tx, err := c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, `INSERT INTO t (key) VALUES ($1)`, m.mode, "tx-"+m.name)
			require.NoError(t, err)
			require.NoError(t, tx.Rollback(ctx))
			assert.Equal(t, 0, count(t, connect(t, direct), "tx-"+m.name), "a rolled back insert is not there")
		})
	}
	evs := p.Control().Events().All()
	require.NotEmpty(t, evs)
	assert.Equal(t, deps.EventConnected, evs[0].Kind)
}
