package postgres_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/tcptest"
	"github.com/idemcheck/idemcheck/deps/postgres"
)

// withSSLMode returns url with its sslmode set to mode.
func withSSLMode(url, mode string) string {
	return strings.Replace(url, "sslmode=disable", "sslmode="+mode, 1)
}

// TestTLSDeclined: a target that prefers TLS (or disables it) connects in
// plain text; one that requires it gives up, and the proxy says the target
// insists on TLS.
func TestTLSDeclined(t *testing.T) {
	_, proxied, p := setup(t)
	ctx := ctxT(t)
	for _, mode := range []string{"disable", "prefer", "allow"} {
		c, err := pgx.Connect(ctx, withSSLMode(proxied, mode))
		require.NoError(t, err, mode)
		require.NoError(t, c.Close(ctx))
	}
	assert.NoError(t, deps.InsistsOnTLS(p.Control().Events().All()), "every target connected in the end")

	all := p.Control().Events().All()
	last := all[len(all)-1].Seq
	_, err := pgx.Connect(ctx, withSSLMode(proxied, "require"))
	require.Error(t, err)
	ev, err := p.Control().Events().Wait(ctx, func(ev deps.Event) bool {
		return ev.Seq > last && ev.Kind == deps.EventProblem && errors.Is(ev.Err, deps.ErrClientRequiresTLS)
	})
	require.NoError(t, err)
	assert.Contains(t, ev.Err.Error(), "sslmode")
	assert.ErrorIs(t, deps.InsistsOnTLS(p.Control().Events().All()), deps.ErrClientRequiresTLS)

	// A client that opens TLS at once, without asking first.
	last = ev.Seq
	_, err = pgx.Connect(ctx, withSSLMode(proxied, "require")+"&sslnegotiation=direct")
	require.Error(t, err)
	ev, err = p.Control().Events().Wait(ctx, func(ev deps.Event) bool {
		return ev.Seq > last && ev.Kind == deps.EventProblem && errors.Is(ev.Err, deps.ErrClientRequiresTLS)
	})
	require.NoError(t, err)
	assert.Contains(t, ev.Err.Error(), "directly")
}

// TestSCRAM: SCRAM-SHA-256 authentication passes through the proxy
// untouched: the right password connects, a wrong one is refused by the
// database with its own error.
func TestSCRAM(t *testing.T) {
	direct := newDB(t)
	d := connect(t, direct)
	ctx := ctxT(t)
	var hba string
	require.NoError(t, d.QueryRow(ctx, `SHOW hba_file`).Scan(&hba))
	var old []string
	rows, err := d.Query(ctx, `SELECT line FROM regexp_split_to_table(pg_read_file($1), E'\n') AS line`, hba)
	require.NoError(t, err)
	for rows.Next() {
		var l string
		require.NoError(t, rows.Scan(&l))
		old = append(old, l)
	}
	require.NoError(t, rows.Err())
	writeHBA := func(lines []string) {
		quoted := make([]string, len(lines))
		for i, l := range lines {
			quoted[i] = "'" + strings.ReplaceAll(l, "'", "''") + "'"
		}
		_, err := d.Exec(ctx, fmt.Sprintf(`COPY (SELECT unnest(ARRAY[%s]::text[])) TO '%s'`, strings.Join(quoted, ","), hba))
		require.NoError(t, err)
		_, err = d.Exec(ctx, `SELECT pg_reload_conf()`)
		require.NoError(t, err)
	}
	_, err = d.Exec(ctx, `CREATE ROLE scram_user LOGIN PASSWORD 'right-pw'`)
	require.NoError(t, err)
	t.Cleanup(func() {
		writeHBA(old)
		_, _ = d.Exec(context.Background(), `DROP ROLE scram_user`)
	})
	writeHBA([]string{"host all scram_user 127.0.0.1/32 scram-sha-256", "host all all 127.0.0.1/32 trust"})
	wrong := strings.Replace(direct, "postgres@", "scram_user:wrong-pw@", 1)
	// The server reloads its configuration on a signal: wait until it
	// asks scram_user for a password.
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := pgx.Connect(ctx, wrong)
		if err != nil {
			require.Equal(t, "28P01", pgCode(err), "%v", err)
			break
		}
		_ = c.Close(ctx)
		require.True(t, time.Now().Before(deadline), "the server never asked for a password")
		time.Sleep(20 * time.Millisecond)
	}

	p := startProxy(t, postgres.Config{})
	right, err := deps.ReplaceHost(strings.Replace(direct, "postgres@", "scram_user:right-pw@", 1), p.Addr())
	require.NoError(t, err)
	c, err := pgx.Connect(ctx, right)
	require.NoError(t, err, "SCRAM through the proxy")
	var who string
	require.NoError(t, c.QueryRow(ctx, `SELECT current_user`).Scan(&who))
	assert.Equal(t, "scram_user", who)
	require.NoError(t, c.Close(ctx))
	bad, err := deps.ReplaceHost(wrong, p.Addr())
	require.NoError(t, err)
	_, err = pgx.Connect(ctx, bad)
	assert.Equal(t, "28P01", pgCode(err), "the database's refusal reaches the target")
}

// TestRefuseNew: while refusing, a new connection gets PostgreSQL's
// "starting up" error, or a reset; open connections go on; AcceptNew
// and an elapsed window let connections in again.
func TestRefuseNew(t *testing.T) {
	_, proxied, p := setup(t)
	ctx := ctxT(t)
	open := connect(t, proxied)

	p.RefuseNew(deps.RefuseStarting, time.Hour)
	_, err := pgx.Connect(ctx, proxied)
	assert.Equal(t, "57P03", pgCode(err))
	assert.Contains(t, fmt.Sprint(err), "the database system is starting up")
	_, err = open.Exec(ctx, `SELECT 1`)
	assert.NoError(t, err, "an open connection is left alone")

	p.RefuseNew(deps.RefuseReset, 0)
	_, err = pgx.Connect(ctx, proxied)
	require.Error(t, err)
	assert.Equal(t, "", pgCode(err), "a reset, not a database error")

	p.AcceptNew()
	c, err := pgx.Connect(ctx, proxied)
	require.NoError(t, err)
	require.NoError(t, c.Close(ctx))

	p.RefuseNew(deps.RefuseReset, time.Nanosecond)
	c, err = pgx.Connect(ctx, proxied)
	require.NoError(t, err, "the window is over")
	require.NoError(t, c.Close(ctx))
	_, err = p.Control().Events().WaitFor(ctx, deps.EventRefused, "")
	assert.NoError(t, err)
}

// TestDropConnections: every open connection is reset, and its open
// transaction rolled back.
func TestDropConnections(t *testing.T) {
	direct, proxied, p := setup(t)
	c := connect(t, proxied)
	ctx := ctxT(t)
	tx, err := c.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, insert, marker(1))
	require.NoError(t, err)
	p.DropConnections()
	assert.Error(t, tx.Commit(ctx))
	assert.Equal(t, 0, count(t, connect(t, direct), marker(1)))
}

// TestCancelRequest: a cancel request sent to the proxy reaches the
// database, which cancels the running statement.
func TestCancelRequest(t *testing.T) {
	_, proxied, p := setup(t)
	c := connect(t, proxied)
	ctx := ctxT(t)
	x := marker(1)
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, `SELECT pg_sleep(60) -- `+x)
		done <- err
	}()
	_, err := p.Control().Events().WaitFor(ctx, deps.EventStatement, x)
	require.NoError(t, err)
	// The statement is on its way; cancel until it is cancelled (a cancel
	// that arrives before the statement starts cancels nothing).
	for {
		require.NoError(t, c.PgConn().CancelRequest(ctx))
		select {
		case err := <-done:
			assert.Equal(t, "57014", pgCode(err))
			return
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("the statement was never cancelled")
		}
	}
}

// TestCloseClosesEverything: Close ends the targets' connections and the
// database's backends for them.
func TestCloseClosesEverything(t *testing.T) {
	direct, proxied, p := setup(t)
	ctx := ctxT(t)
	var cs []*pgx.Conn
	for range 3 {
		cs = append(cs, connect(t, proxied))
	}
	d := connect(t, direct)
	backends := func() int {
		var n int
		require.NoError(t, d.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = current_setting('application_name') AND pid <> pg_backend_pid()`).Scan(&n))
		return n
	}
	require.Equal(t, 3, backends())
	require.NoError(t, p.Close())
	for _, c := range cs {
		_, err := c.Exec(ctx, `SELECT 1`)
		assert.Error(t, err)
	}
	// The backends end once they see their sockets closed.
	deadline := time.Now().Add(20 * time.Second)
	for backends() != 0 {
		require.True(t, time.Now().Before(deadline), "backends still open: %d", backends())
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConcurrentIntents: many intents on a pool of connections at once,
// half of them armed: exactly those fail and write nothing.
func TestConcurrentIntents(t *testing.T) {
	direct, proxied, p := setup(t)
	ctx := ctxT(t)
	pool, err := pgxpool.New(ctx, proxied)
	require.NoError(t, err)
	defer pool.Close()
	const workers, each = 6, 15
	armed := map[string]*deps.Armed{}
	for i := range workers * each {
		if i%2 == 1 {
			armed[marker(i)] = arm(t, p, deps.Rule{Intent: marker(i), Action: deps.Fail})
		}
	}
	errs := make([]error, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				i := w*each + j
				tx, err := pool.Begin(ctx)
				if err != nil {
					errs[i] = err
					continue
				}
				if _, err = tx.Exec(ctx, insert, marker(i)); err == nil {
					err = tx.Commit(ctx)
				} else {
					_ = tx.Rollback(ctx)
				}
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	d := connect(t, direct)
	for i, err := range errs {
		if a := armed[marker(i)]; a != nil {
			assert.Equal(t, "40001", pgCode(err), "intent %d", i)
			assert.Equal(t, 1, a.Count())
			assert.Equal(t, 0, count(t, d, marker(i)))
		} else {
			assert.NoError(t, err, "intent %d", i)
			assert.Equal(t, 1, count(t, d, marker(i)))
		}
	}
}

// TestStartChecksTheDatabase: a dependency that does not answer, or
// answers in another protocol, is an error from Start, not a hang.
func TestStartChecksTheDatabase(t *testing.T) {
	cases := []struct {
		name  string
		serve func(net.Conn)
		want  error
	}{
		{"silent", func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }, deps.ErrUpstreamSilent},
		{"another protocol", func(c net.Conn) {
			_, _ = c.Read(make([]byte, 8))
			_, _ = c.Write([]byte("-ERR unknown command\r\n"))
		}, deps.ErrUpstreamProtocol},
		{"closes", func(c net.Conn) {}, deps.ErrUpstreamProtocol},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := tcptest.Serve(t, tc.serve)
			_, err := postgres.Start(ctxT(t), postgres.Config{Upstream: addr, DialTimeout: 300 * time.Millisecond})
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
		})
	}
	_, err := postgres.Start(ctxT(t), postgres.Config{Upstream: closedPort(t)})
	assert.ErrorIs(t, err, deps.ErrUpstreamUnreachable)
}

// TestStartupDeadline: a database that passes Start's check but then does
// not answer a startup, or answers in another protocol, gives the target
// a FATAL error that says so within the startup timeout.
func TestStartupDeadline(t *testing.T) {
	cases := []struct {
		name   string
		answer func(net.Conn)
		want   error
		text   string
	}{
		{"silent", func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }, deps.ErrUpstreamSilent, "did not complete the startup"},
		{"http", func(c net.Conn) {
			_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			_, _ = io.Copy(io.Discard, c)
		}, deps.ErrUpstreamProtocol, "is it PostgreSQL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := tcptest.Serve(t, func(c net.Conn) {
				if pkt := readPacket(c); pkt != nil && binary.BigEndian.Uint32(pkt[4:]) == 80877103 {
					_, _ = c.Write([]byte{'N'}) // Start's check
					return
				}
				tc.answer(c)
			})
			p := startProxy(t, postgres.Config{Upstream: addr, StartupTimeout: 300 * time.Millisecond})
			_, err := pgx.Connect(ctxT(t), "postgres://u@"+p.Addr()+"/db?sslmode=disable&connect_timeout=20")
			require.Error(t, err)
			assert.Equal(t, "08006", pgCode(err))
			assert.Contains(t, err.Error(), tc.text)
			ev, werr := p.Control().Events().WaitFor(ctxT(t), deps.EventProblem, "")
			require.NoError(t, werr)
			assert.ErrorIs(t, ev.Err, tc.want)
		})
	}
}

// TestLargeDataRowIsStreamed: a 1 GiB DataRow from the database is
// forwarded as it arrives, not held whole: the target reads its first
// megabytes while the rest has not even been sent.
func TestLargeDataRowIsStreamed(t *testing.T) {
	const claimed = 1 << 30
	const sent = 8 << 20
	release := make(chan struct{})
	addr := tcptest.Serve(t, func(c net.Conn) {
		if pkt := readPacket(c); pkt == nil || binary.BigEndian.Uint32(pkt[4:]) == 80877103 {
			_, _ = c.Write([]byte{'N'})
			return
		}
		var out []byte
		out, _ = (&pgproto3.AuthenticationOk{}).Encode(out)
		out, _ = (&pgproto3.ReadyForQuery{TxStatus: 'I'}).Encode(out)
		_, _ = c.Write(out)
		_, _ = c.Read(make([]byte, 1024)) // the Query
		hdr := []byte{'D', 0, 0, 0, 0}
		binary.BigEndian.PutUint32(hdr[1:], claimed+4)
		_, _ = c.Write(hdr)
		chunk := make([]byte, 1<<20)
		for range sent / len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
		<-release
	})
	defer close(release)
	p := startProxy(t, postgres.Config{Upstream: addr})
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}})
	require.NoError(t, fe.Flush())
	for {
		m, err := fe.Receive()
		require.NoError(t, err)
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	// Read raw from here: the DataRow is larger than a client would take.
	fe.Send(&pgproto3.Query{String: "SELECT big"})
	require.NoError(t, fe.Flush())
	got := make([]byte, 5+sent)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err, "the first %d bytes of the row arrive before the rest is sent", sent)
	assert.Equal(t, byte('D'), got[0])
	assert.Equal(t, uint32(claimed+4), binary.BigEndian.Uint32(got[1:5]))
}

// TestTooLargeStatement: a statement larger than the proxy reads whole is
// forwarded unattributed and reported; a smaller one is attributed.
func TestTooLargeStatement(t *testing.T) {
	direct := newDB(t)
	d := connect(t, direct)
	ctx := ctxT(t)
	_, err := d.Exec(ctx, `CREATE TABLE t (id serial PRIMARY KEY, key text, note text)`)
	require.NoError(t, err)
	p := startProxy(t, postgres.Config{MaxMessage: 1024})
	proxied, err := deps.ReplaceHost(direct, p.Addr())
	require.NoError(t, err)
	c := connect(t, proxied)
	x := marker(1)
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Times: -1})
	_, err = c.Exec(ctx, `INSERT INTO t (key, note) VALUES ($1, $2)`, x, strings.Repeat("n", 4096))
	require.NoError(t, err, "too large to inspect: forwarded as it is")
	assert.Equal(t, 0, a.Count())
	ev, err := p.Control().Events().WaitFor(ctx, deps.EventProblem, "")
	require.NoError(t, err)
	assert.ErrorIs(t, ev.Err, deps.ErrTooLarge)
	_, err = c.Exec(ctx, `INSERT INTO t (key, note) VALUES ($1, $2)`, x, "short")
	assert.Equal(t, "40001", pgCode(err))
}

// TestArmValidates: a rule PostgreSQL cannot honour is refused when armed.
func TestArmValidates(t *testing.T) {
	_, _, p := setup(t)
	for _, r := range []deps.Rule{
		{Intent: marker(1), Action: deps.Fail, Code: "ERR"},
		{Intent: marker(1), Action: deps.Stall},
		{Action: deps.Fail},
		{Intent: marker(1), Action: deps.BeforeCommit},
		{Intent: marker(1), Action: "explode"},
	} {
		_, err := p.Control().Arm(r)
		assert.Error(t, err, "%+v", r)
	}
}

// readPacket reads one length-prefixed startup packet, or nil.
func readPacket(c net.Conn) []byte {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil
	}
	n := binary.BigEndian.Uint32(h[:])
	if n < 8 || n > 10000 {
		return nil
	}
	pkt := make([]byte, n)
	copy(pkt, h[:])
	if _, err := io.ReadFull(c, pkt[4:]); err != nil {
		return nil
	}
	return pkt
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

var _ = context.Background

// TestStartupTargetSilent: a target that does not answer the database's
// authentication request within the startup timeout is reported as the
// one that kept the startup waiting.
func TestStartupTargetSilent(t *testing.T) {
	addr := tcptest.Serve(t, func(c net.Conn) {
		if pkt := readPacket(c); pkt == nil || binary.BigEndian.Uint32(pkt[4:]) == 80877103 {
			_, _ = c.Write([]byte{'N'})
			return
		}
		b, _ := (&pgproto3.AuthenticationCleartextPassword{}).Encode(nil)
		_, _ = c.Write(b)
		_, _ = io.Copy(io.Discard, c)
	})
	p := startProxy(t, postgres.Config{Upstream: addr, StartupTimeout: 300 * time.Millisecond})
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}})
	require.NoError(t, fe.Flush())
	// The target reads the request and says nothing.
	ev, err := p.Control().Events().WaitFor(ctxT(t), deps.EventProblem, "")
	require.NoError(t, err)
	assert.ErrorIs(t, ev.Err, deps.ErrClientProtocol)
	assert.Contains(t, ev.Err.Error(), "did not answer the database's authentication request")
}
