package observe

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countDials makes every connection OpenSQL opens go through a counter,
// for the test's length.
func countDials(t *testing.T) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	orig := openPG
	openPG = func(cfg pgx.ConnConfig) *sql.DB {
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			n.Add(1)
			return dial(ctx, network, addr)
		}
		return stdlib.OpenDB(cfg)
	}
	t.Cleanup(func() { openPG = orig })
	return &n
}

// TestSQLObserverStaysOnLoopback: a DSN that names a host off loopback,
// however it names it, is refused before any connection is made; one on
// loopback connects (here to a listener that hangs up, so the ping fails
// after the dial).
func TestSQLObserverStaysOnLoopback(t *testing.T) {
	dials := countDials(t)
	const query = "SELECT id FROM orders WHERE note = {{marker}}"
	rows := []struct {
		why, dsn, env string
	}{
		{"a literal host", "postgres://app:s3cret-pw@10.1.2.3:5432/shop", ""},
		{"a host in the query", "postgres://app:s3cret-pw@127.0.0.1:5432/shop?host=10.1.2.3", ""},
		{"a fallback host", "postgres://app:s3cret-pw@127.0.0.1:5432,10.1.2.3:5432/shop", ""},
		{"a name other than localhost, never resolved", "postgres://app:s3cret-pw@db.internal.example/shop", ""},
		{"a host from the environment", "postgres://app:s3cret-pw@/shop", "10.1.2.3"},
		{"an IPv6 host", "postgres://app:s3cret-pw@[fd00::1]:5432/shop", ""},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			if r.env != "" {
				t.Setenv("PGHOST", r.env)
			}
			_, err := OpenSQL(t.Context(), SQL{DSN: r.dsn, Query: query})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not loopback")
			assert.Contains(t, err.Error(), "allow_remote")
			assert.NotContains(t, err.Error(), "s3cret-pw", "the password is never printed")
			assert.Zero(t, dials.Load(), "no connection was attempted")
		})
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, host := range []string{"127.0.0.1", "localhost"} {
		before := dials.Load()
		_, err := OpenSQL(t.Context(), SQL{DSN: "postgres://app@" + host + ":" + port + "/shop?sslmode=disable&connect_timeout=5", Query: query})
		require.Error(t, err, "the listener is no database")
		assert.Contains(t, err.Error(), "cannot reach the database", host)
		assert.Greater(t, dials.Load(), before, "%s is loopback: the observer connected", host)
	}
}

// TestSQLObserverDialGuard: past the DSN's check, a lookup or a dial that
// would leave loopback is refused too, and "localhost" is never asked of
// DNS; with Remote, the DSN's host is taken as it is.
func TestSQLObserverDialGuard(t *testing.T) {
	cfg, err := pgConfig("postgres://app@localhost/shop", false)
	require.NoError(t, err)
	addrs, err := cfg.LookupFunc(t.Context(), "localhost")
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1", "::1"}, addrs)
	_, err = cfg.LookupFunc(t.Context(), "db.internal.example")
	assert.ErrorContains(t, err, "not a loopback host")
	_, err = cfg.DialFunc(t.Context(), "tcp", "10.1.2.3:5432")
	assert.ErrorContains(t, err, "not a loopback address")

	cfg, err = pgConfig("postgres://app@10.1.2.3:5432/shop", true)
	require.NoError(t, err, "allow_remote")
	assert.Equal(t, "10.1.2.3", cfg.Host)
}

// TestRedisObserverStaysOnLoopback: a Redis observer refuses, before any
// connection, a host that is not loopback, whether written in the URL or
// brought by {{env.NAME}}; localhost is taken as 127.0.0.1.
func TestRedisObserverStaysOnLoopback(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_REDIS_URL", "redis://10.11.12.13:6379/0")
	for _, u := range []string{"redis://10.11.12.13:6379/0", "redis://cache.example.test:6379", "{{env.IDEMCHECK_TEST_REDIS_URL}}"} {
		_, err := Redis{URL: u, Keys: "k:{{marker}}"}.Open(context.Background(), Where{})
		require.Error(t, err, u)
		assert.Contains(t, err.Error(), "not a loopback host", u)
	}
	// localhost is never looked up: with nothing listening on the port,
	// the refusal is the connection's, at 127.0.0.1.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	_, err = Redis{URL: fmt.Sprintf("redis://localhost:%d", port), Keys: "k:{{marker}}"}.Open(context.Background(), Where{})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "not a loopback host")
	assert.Contains(t, err.Error(), "127.0.0.1")
}
