package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/postgres"
	"github.com/idemcheck/idemcheck/internal/pgserver"
)

// One real PostgreSQL serves every test of the package; each test works in
// a database of its own.
var (
	server     *pgserver.Server
	skipReason string
	dbCount    atomic.Int64
)

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	s, err := pgserver.Start(ctx)
	cancel()
	switch {
	case errors.Is(err, pgserver.ErrNotInstalled):
		skipReason = err.Error()
	case err != nil:
		fmt.Fprintln(os.Stderr, "starting PostgreSQL:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if s != nil {
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping PostgreSQL:", err)
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// newDB returns the direct URL of a fresh schema of its own (a database
// takes far longer to create), which is also the connections'
// application_name; it skips the test when PostgreSQL is not installed.
func newDB(t testing.TB) string {
	t.Helper()
	if server == nil {
		t.Skipf("skipping: %s", skipReason)
	}
	name := "s" + strconv.FormatInt(dbCount.Add(1), 10)
	c, err := pgx.Connect(ctxT(t), server.DSN("postgres"))
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(ctxT(t), `CREATE SCHEMA `+name)
	require.NoError(t, err)
	return server.DSN("postgres") + "&search_path=" + name + "&application_name=" + name
}

// upstream returns the server's host:port.
func upstream() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(server.Port)) }

// startProxy starts a proxy in front of the test server and closes it when
// the test ends.
func startProxy(t testing.TB, cfg postgres.Config) *postgres.Proxy {
	t.Helper()
	if cfg.Upstream == "" {
		cfg.Upstream = upstream()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := postgres.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// setup returns a fresh database's direct URL and the URL of the same
// database through a new proxy, with a table t (id serial, key text, note
// text) in it.
func setup(t testing.TB) (direct, proxied string, p *postgres.Proxy) {
	t.Helper()
	direct = newDB(t)
	p = startProxy(t, postgres.Config{})
	proxied, err := deps.ReplaceHost(direct, p.Addr())
	require.NoError(t, err)
	c, err := pgx.Connect(ctxT(t), direct)
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(ctxT(t), `CREATE TABLE t (id serial PRIMARY KEY, key text, note text)`)
	require.NoError(t, err)
	return direct, proxied, p
}

// connect opens a pgx connection and closes it when the test ends.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctxT(t), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// ctxT returns a context that ends with the test, or after 30 s.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// marker returns the i-th test intent's marker.
func marker(i int) string { return fmt.Sprintf("idem-%016x", 0xabc000+i) }

// count returns how many rows of t carry key.
func count(t testing.TB, c *pgx.Conn, key string) int {
	t.Helper()
	var n int
	require.NoError(t, c.QueryRow(ctxT(t), `SELECT count(*) FROM t WHERE key = $1`, key).Scan(&n))
	return n
}

// modes are the two ways pgx sends a statement: the extended protocol
// with a cached prepared statement, and the simple protocol.
var modes = []struct {
	name string
	mode pgx.QueryExecMode
}{
	{"extended", pgx.QueryExecModeCacheStatement},
	{"simple", pgx.QueryExecModeSimpleProtocol},
}
