package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
)

// pgCode returns the SQLSTATE of err, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// arm arms r on p and fails the test on a bad rule.
func arm(t testing.TB, p deps.Proxy, r deps.Rule) *deps.Armed {
	t.Helper()
	a, err := p.Control().Arm(r)
	require.NoError(t, err)
	return a
}

const insert = `INSERT INTO t (key, note) VALUES ($1, 'x')`

// TestFailWrite: the armed intent's write fails with the rule's SQLSTATE
// and PostgreSQL's own text, nothing is written, and the database's
// transaction is aborted as the target was told; another intent's write on
// the same connection is untouched.
func TestFailWrite(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			direct, proxied, p := setup(t)
			c, d := connect(t, proxied), connect(t, direct)
			ctx := ctxT(t)
			x, y := marker(1), marker(2)
			a := arm(t, p, deps.Rule{Intent: x, Action: deps.Fail})

			_, err := c.Exec(ctx, insert, m.mode, y)
			require.NoError(t, err, "another intent's write is untouched")
			assert.Equal(t, 0, a.Count())

			_, err = c.Exec(ctx, insert, m.mode, x)
			require.Error(t, err)
			assert.Equal(t, "40001", pgCode(err))
			assert.Contains(t, err.Error(), "could not serialize access")
			assert.Equal(t, 1, a.Count())
			assert.Equal(t, 0, count(t, d, x), "the failed write wrote nothing")
			assert.Equal(t, 1, count(t, d, y))

			_, err = c.Exec(ctx, insert, m.mode, x)
			require.NoError(t, err, "a rule armed once acts once")
			assert.Equal(t, 1, count(t, d, x))
		})
	}
}

// TestFailWriteInTransaction: inside a transaction, the failed write
// leaves the database's transaction aborted (25P02 for what follows), as a
// real serialization failure does; the commit rolls back.
func TestFailWriteInTransaction(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			direct, proxied, p := setup(t)
			c, d := connect(t, proxied), connect(t, direct)
			ctx := ctxT(t)
			x := marker(1)
			arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Code: "40P01"})
			tx, err := c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, `INSERT INTO t (key) VALUES ('before')`, m.mode)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, insert, m.mode, x)
			assert.Equal(t, "40P01", pgCode(err))
			assert.Contains(t, err.Error(), "deadlock detected")
			_, err = tx.Exec(ctx, `SELECT 1`, m.mode)
			assert.Equal(t, "25P02", pgCode(err), "the database's transaction is aborted, as the target was told")
			assert.Error(t, tx.Commit(ctx), "committing an aborted transaction rolls it back")
			assert.Equal(t, 0, count(t, d, "before"))
			assert.Equal(t, byte('I'), c.PgConn().TxStatus())
			_, err = c.Exec(ctx, insert, m.mode, x)
			require.NoError(t, err, "the connection goes on")
		})
	}
}

// TestFailAdminShutdown: 57P01 arrives as FATAL and the connection ends,
// as PostgreSQL ends it on an administrator's shutdown; the transaction is
// rolled back and a new connection works.
func TestFailAdminShutdown(t *testing.T) {
	direct, proxied, p := setup(t)
	c, d := connect(t, proxied), connect(t, direct)
	ctx := ctxT(t)
	x := marker(1)
	arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Code: "57P01"})
	tx, err := c.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO t (key) VALUES ('before')`)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, insert, x)
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "57P01", pe.Code)
	assert.Equal(t, "FATAL", pe.Severity)
	assert.Equal(t, "terminating connection due to administrator command", pe.Message)
	assert.True(t, c.IsClosed() || c.Ping(ctx) != nil, "the connection is over")
	assert.Equal(t, 0, count(t, d, "before"), "the open transaction was rolled back")
	c2 := connect(t, proxied)
	_, err = c2.Exec(ctx, insert, x)
	require.NoError(t, err)
}

// TestFailInFlight: a statement with no marker is attributed to the
// intent in flight, and to nobody once it is cleared.
func TestFailInFlight(t *testing.T) {
	direct, proxied, p := setup(t)
	c, d := connect(t, proxied), connect(t, direct)
	ctx := ctxT(t)
	x := marker(1)
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Times: -1})
	_, err := c.Exec(ctx, `INSERT INTO t (key) VALUES ('plain')`)
	require.NoError(t, err, "nobody is in flight: the write is nobody's")
	p.Control().SetInFlight(x)
	_, err = c.Exec(ctx, `INSERT INTO t (key) VALUES ('plain')`)
	assert.Equal(t, "40001", pgCode(err))
	p.Control().SetInFlight("")
	_, err = c.Exec(ctx, `INSERT INTO t (key) VALUES ('plain')`)
	require.NoError(t, err)
	assert.Equal(t, 2, count(t, d, "plain"))
	assert.Equal(t, 1, a.Count())
}

// TestFailInheritedFromTransaction: a write without a marker in a
// transaction whose earlier statement carried the intent's marker is that
// intent's write.
func TestFailInheritedFromTransaction(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, proxied, p := setup(t)
			c := connect(t, proxied)
			ctx := ctxT(t)
			x := marker(1)
			arm(t, p, deps.Rule{Intent: x, Action: deps.Fail})
			tx, err := c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, `SELECT count(*) FROM t WHERE key = $1`, m.mode, x)
			require.NoError(t, err, "a read is not a write")
			_, err = tx.Exec(ctx, `INSERT INTO t (key) VALUES ('order')`, m.mode)
			assert.Equal(t, "40001", pgCode(err))
			require.NoError(t, tx.Rollback(ctx))
		})
	}
}

// TestResetAfterCommit: the commit carrying the armed intent's write is
// committed, and the target's connection is reset before the answer
// reaches it; a rolled back transaction and another intent's commit are
// untouched.
func TestResetAfterCommit(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			direct, proxied, p := setup(t)
			d := connect(t, direct)
			ctx := ctxT(t)
			x, y := marker(1), marker(2)
			a := arm(t, p, deps.Rule{Intent: x, Action: deps.ResetAfterCommit})

			c := connect(t, proxied)
			tx, err := c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, insert, m.mode, x)
			require.NoError(t, err)
			require.NoError(t, tx.Rollback(ctx), "a rolled back transaction commits nothing to reset")
			assert.Equal(t, 0, a.Count())

			tx, err = c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, insert, m.mode, y)
			require.NoError(t, err)
			require.NoError(t, tx.Commit(ctx), "another intent's commit is answered")

			tx, err = c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, insert, m.mode, x)
			require.NoError(t, err)
			err = tx.Commit(ctx)
			require.Error(t, err, "the answer to the commit never arrives")
			assert.Equal(t, "", pgCode(err), "a lost connection, not a database error")
			assert.Equal(t, 1, a.Count())
			assert.Equal(t, 1, count(t, d, x), "and yet it committed")
			assert.Equal(t, 1, count(t, d, y))

			ev, err := p.Control().Events().Wait(ctx, func(ev deps.Event) bool {
				return ev.Kind == deps.EventCommitReplied && ev.Intent == x && ev.Committed
			})
			require.NoError(t, err)
			assert.True(t, ev.Withheld)
		})
	}
}

// TestResetAfterAutocommitWrite: outside a transaction the write is its
// own commit.
func TestResetAfterAutocommitWrite(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			direct, proxied, p := setup(t)
			d := connect(t, direct)
			ctx := ctxT(t)
			x := marker(1)
			arm(t, p, deps.Rule{Intent: x, Action: deps.ResetAfterCommit})
			c := connect(t, proxied)
			_, err := c.Exec(ctx, `SELECT count(*) FROM t WHERE key = $1`, m.mode, x)
			require.NoError(t, err, "a read commits no write")
			_, err = c.Exec(ctx, insert, m.mode, x)
			require.Error(t, err)
			assert.Equal(t, 1, count(t, d, x))
		})
	}
}

// TestResetAfterCommitBatch: a pgx batch (several statements before one
// Sync) is held and reset as one.
func TestResetAfterCommitBatch(t *testing.T) {
	direct, proxied, p := setup(t)
	d := connect(t, direct)
	ctx := ctxT(t)
	x, y := marker(1), marker(2)
	arm(t, p, deps.Rule{Intent: x, Action: deps.ResetAfterCommit})
	c := connect(t, proxied)
	b := &pgx.Batch{}
	b.Queue(insert, y)
	b.Queue(insert, x)
	err := c.SendBatch(ctx, b).Close()
	require.Error(t, err)
	assert.Equal(t, 1, count(t, d, x))
	assert.Equal(t, 1, count(t, d, y))
}

// TestStall: the armed intent's statement waits the rule's delay before
// it is forwarded; another intent's statement is not held.
func TestStall(t *testing.T) {
	_, proxied, p := setup(t)
	c := connect(t, proxied)
	ctx := ctxT(t)
	x, y := marker(1), marker(2)
	const delay = 50 * time.Millisecond
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Stall, Delay: delay})
	_, err := c.Exec(ctx, insert, y)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Count(), "another intent's statement is not held")
	start := time.Now()
	_, err = c.Exec(ctx, insert, x)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), delay, "held for the delay at least")
	assert.Equal(t, 1, a.Count())
}

// TestStallHoldsTheStatement: while stalled, the statement has not
// reached the database.
func TestStallHoldsTheStatement(t *testing.T) {
	direct, proxied, p := setup(t)
	c, d := connect(t, proxied), connect(t, direct)
	ctx := ctxT(t)
	x := marker(1)
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Stall, Delay: time.Hour})
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), insert, x)
		done <- err
	}()
	select {
	case <-a.Fired():
	case <-ctx.Done():
		t.Fatal("the stall rule never fired")
	}
	assert.Equal(t, 0, count(t, d, x), "the stalled write has not reached the database")
	require.NoError(t, p.Close())
	assert.Error(t, <-done, "closing the proxy ends the stalled connection")
}

// TestHooks: BeforeCommit runs before the commit reaches the database
// (the write is not visible yet); AfterCommitReply runs once the target
// has the answer (its Commit returned) and the write is visible.
func TestHooks(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			direct, proxied, p := setup(t)
			d := connect(t, direct)
			ctx := ctxT(t)
			x := marker(1)
			committed := make(chan struct{})
			// The hooks run on the proxy's goroutines: they note what they
			// see, and the test checks it.
			var before, after int
			var afterSawReply bool
			rows := func() int {
				var n int
				if err := d.QueryRow(context.Background(), `SELECT count(*) FROM t WHERE key = $1`, x).Scan(&n); err != nil {
					return -1
				}
				return n
			}
			arm(t, p, deps.Rule{Intent: x, Action: deps.BeforeCommit, Hook: func(ctx context.Context, ev deps.Event) {
				before = rows()
			}})
			arm(t, p, deps.Rule{Intent: x, Action: deps.AfterCommitReply, Hook: func(ctx context.Context, ev deps.Event) {
				select {
				case <-committed:
					afterSawReply = true
				case <-time.After(10 * time.Second):
				}
				after = rows()
			}})
			c := connect(t, proxied)
			tx, err := c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, insert, m.mode, x)
			require.NoError(t, err)
			require.NoError(t, tx.Commit(ctx))
			close(committed)
			_, err = p.Control().Events().Wait(ctx, func(ev deps.Event) bool {
				return ev.Kind == deps.EventFault && ev.Action == deps.AfterCommitReply
			})
			require.NoError(t, err)
			// The hook has returned once the next statement is answered.
			_, err = c.Exec(ctx, `SELECT 1`)
			require.NoError(t, err)
			assert.Equal(t, 0, before, "before the commit, the write is not visible")
			assert.True(t, afterSawReply, "the target had the commit's answer while the hook ran")
			assert.Equal(t, 1, after)
		})
	}
}

// TestEvents: an intent's write, the commit carrying it and the answer to
// it are recorded in that order; a rollback is recorded as not committed.
func TestEvents(t *testing.T) {
	_, proxied, p := setup(t)
	c := connect(t, proxied)
	ctx := ctxT(t)
	x, y := marker(1), marker(2)
	tx, err := c.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, insert, x)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	tx, err = c.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, insert, y)
	require.NoError(t, err)
	require.NoError(t, tx.Rollback(ctx))

	ev := p.Control().Events()
	w, err := ev.WaitFor(ctx, deps.EventWrite, x)
	require.NoError(t, err)
	cm, err := ev.WaitFor(ctx, deps.EventCommit, x)
	require.NoError(t, err)
	r, err := ev.WaitFor(ctx, deps.EventCommitReplied, x)
	require.NoError(t, err)
	assert.Less(t, w.Seq, cm.Seq)
	assert.Less(t, cm.Seq, r.Seq)
	assert.True(t, r.Committed)
	assert.Contains(t, w.Statement, "INSERT INTO t")
	ry, err := ev.WaitFor(ctx, deps.EventCommitReplied, y)
	require.NoError(t, err)
	assert.False(t, ry.Committed, "a rolled back transaction did not commit")
	for _, e := range ev.All() {
		if e.Kind == deps.EventCommit {
			assert.NotEqual(t, y, e.Intent, "a ROLLBACK is no commit")
		}
	}
}

// TestHookDrop: a BeforeCommit rule with Drop stops the commit once its
// hook returns: the target's commit fails, and the write never becomes
// visible (the database rolled back), as when the target dies there.
func TestHookDrop(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			direct, proxied, p := setup(t)
			d := connect(t, direct)
			ctx := ctxT(t)
			x := marker(1)
			arm(t, p, deps.Rule{Intent: x, Action: deps.BeforeCommit, Drop: true, Hook: func(context.Context, deps.Event) {}})
			c := connect(t, proxied)
			tx, err := c.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, insert, m.mode, x)
			require.NoError(t, err)
			require.Error(t, tx.Commit(ctx), "the dropped commit is never answered")
			_, err = p.Control().Events().WaitFor(ctx, deps.EventFault, x)
			require.NoError(t, err)
			// The database ends the transaction once its connection is
			// closed; a new one waits for that, with a deadline.
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for i := 0; i < 1000; i++ {
				var n int
				require.NoError(t, d.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`).Scan(&n))
				if n == 0 {
					break
				}
				<-tick.C
			}
			assert.Equal(t, 0, count(t, d, x), "the dropped commit did not commit")
		})
	}
}
