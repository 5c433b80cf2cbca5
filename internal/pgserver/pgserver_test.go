package pgserver_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/pgserver"
)

// TestStartQueryStop starts a real server, writes and reads a row in a
// database of its own, and stops it.
func TestStartQueryStop(t *testing.T) {
	s := pgserver.Must(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := s.CreateDatabase(ctx, "probe")
	require.NoError(t, err)
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE t (id serial PRIMARY KEY, note text)`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `INSERT INTO t (note) VALUES ($1)`, "hello")
	require.NoError(t, err)
	var n int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM t WHERE note = $1`, "hello").Scan(&n))
	require.Equal(t, 1, n)
	require.NoError(t, s.Stop())
	require.Error(t, db.PingContext(ctx), "a stopped server answers no more")
}
