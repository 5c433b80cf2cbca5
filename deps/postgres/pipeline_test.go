package postgres_test

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

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

// TestDeepPipeline: more batches sent ahead than the proxy queues at once
// go through whole, in order (the proxy waits for answers to make room).
func TestDeepPipeline(t *testing.T) {
	_, proxied, _ := setup(t)
	ctx := ctxT(t)
	cfg, err := pgconn.ParseConfig(proxied)
	require.NoError(t, err)
	c, err := net.Dial("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	require.NoError(t, err)
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		require.NoError(t, c.SetDeadline(dl))
	}
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": cfg.User, "database": cfg.Database}})
	require.NoError(t, fe.Flush())
	const n = 20000 // more than the proxy queues (1<<14)
	readyFor := func(count int) error {
		for seen := 0; seen < count; {
			m, err := fe.Receive()
			if err != nil {
				return err
			}
			switch m := m.(type) {
			case *pgproto3.ReadyForQuery:
				seen++
			case *pgproto3.ErrorResponse:
				return fmt.Errorf("%s", m.Message)
			}
		}
		return nil
	}
	require.NoError(t, readyFor(1), "the startup")
	sent := make(chan error, 1)
	go func() {
		var buf []byte
		for range n {
			buf, _ = (&pgproto3.Query{String: "SELECT 1"}).Encode(buf)
		}
		_, err := c.Write(buf)
		sent <- err
	}()
	require.NoError(t, readyFor(n), "every query answered")
	require.NoError(t, <-sent)
}
