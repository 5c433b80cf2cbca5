package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
)

// TestExtendedCommit: BEGIN, the write and COMMIT all sent with the
// extended protocol (Parse, Bind, Execute, Sync): the COMMIT's answer is
// the one withheld.
func TestExtendedCommit(t *testing.T) {
	direct, proxied, p := setup(t)
	d := connect(t, direct)
	ctx := ctxT(t)
	x := marker(1)
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.ResetAfterCommit})
	pc := connect(t, proxied).PgConn()
	for _, sql := range []string{"BEGIN", "INSERT INTO t (key) VALUES ($1)"} {
		var args [][]byte
		if sql != "BEGIN" {
			args = [][]byte{[]byte(x)}
		}
		_, err := pc.ExecParams(ctx, sql, args, nil, nil, nil).Close()
		require.NoError(t, err, sql)
	}
	assert.Equal(t, 0, a.Count(), "nothing committed yet")
	_, err := pc.ExecParams(ctx, "COMMIT", nil, nil, nil, nil).Close()
	require.Error(t, err)
	assert.Equal(t, 1, a.Count())
	assert.Equal(t, 1, count(t, d, x))
}

// TestPipeline: batches sent one after another without waiting for the
// answers (pgx's pipeline mode, one Sync each) are followed batch by
// batch: the armed intent's write fails and the one before it commits.
func TestPipeline(t *testing.T) {
	direct, proxied, p := setup(t)
	d := connect(t, direct)
	ctx := ctxT(t)
	x, y := marker(1), marker(2)
	arm(t, p, deps.Rule{Intent: y, Action: deps.Fail})
	pc := connect(t, proxied).PgConn()
	pl := pc.StartPipeline(ctx)
	pl.SendQueryParams(insert, [][]byte{[]byte(x)}, nil, nil, nil)
	require.NoError(t, pl.Sync())
	pl.SendQueryParams(insert, [][]byte{[]byte(y)}, nil, nil, nil)
	require.NoError(t, pl.Sync())
	var errs []error
	for range 20 { // 2 results and 2 syncs, with room for errors
		res, err := pl.GetResults()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if res == nil {
			break
		}
		if rr, ok := res.(interface{ Close() ([]byte, error) }); ok {
			_, err := rr.Close()
			errs = append(errs, err)
		}
	}
	require.NoError(t, pl.Close())
	assert.Equal(t, 1, count(t, d, x), "the first batch committed")
	assert.Equal(t, 0, count(t, d, y), "the second failed")
	var codes []string
	for _, err := range errs {
		codes = append(codes, pgCode(err))
	}
	assert.Contains(t, codes, "40001")
	r, err := p.Control().Events().WaitFor(ctx, deps.EventCommitReplied, x)
	require.NoError(t, err)
	assert.True(t, r.Committed)
}
