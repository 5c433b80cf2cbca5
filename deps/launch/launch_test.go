package launch_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestThrowawayPostgres: a throwaway database is reached through the
// proxy's URL, its writes seen directly and by the proxy; two
// dependencies share one server with a database each; once the last
// closes, the server is gone.
func TestThrowawayPostgres(t *testing.T) {
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	ctx := ctxT(t)
	a, err := launch.Start(ctx, launch.Spec{Name: "db", Protocol: launch.Postgres})
	require.NoError(t, err)
	b, err := launch.Start(ctx, launch.Spec{Name: "db2", Protocol: launch.Postgres})
	require.NoError(t, err)
	assert.NotEqual(t, a.DirectURL, b.DirectURL, "a database each")
	assert.Contains(t, a.URL, a.Addr(), "the target is handed the proxy's address")

	c, err := pgx.Connect(ctx, a.URL)
	require.NoError(t, err)
	x := "idem-00000000000000a1"
	_, err = c.Exec(ctx, `CREATE TABLE t (note text)`)
	require.NoError(t, err)
	_, err = c.Exec(ctx, `INSERT INTO t VALUES ($1)`, x)
	require.NoError(t, err)
	_, err = a.Proxy.Control().Events().WaitFor(ctx, deps.EventCommitReplied, x)
	require.NoError(t, err, "the proxy saw the write's commit")
	require.NoError(t, c.Close(ctx))

	d, err := pgx.Connect(ctx, a.DirectURL)
	require.NoError(t, err)
	var n int
	require.NoError(t, d.QueryRow(ctx, `SELECT count(*) FROM t WHERE note = $1`, x).Scan(&n))
	assert.Equal(t, 1, n)
	require.NoError(t, d.Close(ctx))

	require.NoError(t, a.Close())
	_, err = pgx.Connect(ctx, a.DirectURL)
	assert.Error(t, err, "the closed dependency's database is dropped")
	require.NoError(t, b.Close())
	_, err = pgx.Connect(ctx, b.DirectURL)
	assert.Error(t, err, "the server is stopped once nothing uses it")
}

// TestThrowawayRedis: a throwaway Redis behind the proxy, gone on Close.
func TestThrowawayRedis(t *testing.T) {
	if _, err := redisserver.Find(); err != nil {
		t.Skip(err)
	}
	ctx := ctxT(t)
	d, err := launch.Start(ctx, launch.Spec{Name: "cache", Protocol: launch.Redis})
	require.NoError(t, err)
	assert.Regexp(t, `^redis://127\.0\.0\.1:\d+/0$`, d.URL)
	conn, err := net.DialTimeout("tcp", d.Addr(), 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = conn.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 7)
	_, err = conn.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "+PONG\r\n", string(buf))
	_ = conn.Close()
	require.NoError(t, d.Close())
	_, err = net.DialTimeout("tcp", d.Addr(), time.Second)
	assert.Error(t, err, "the proxy is closed")
}

// TestUntestable: what cannot be put behind a proxy is an error that
// says why, at once, never a hang.
func TestUntestable(t *testing.T) {
	ctx := ctxT(t)
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	// Something that accepts and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	// Something that speaks another protocol: HTTP.
	http, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer http.Close()
	go func() {
		for {
			c, err := http.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			_ = c.Close()
		}
	}()
	for _, tc := range []struct {
		name string
		spec launch.Spec
		want string
	}{
		{"refused", launch.Spec{Name: "db", Protocol: launch.Postgres, URL: "postgres://u@" + closed + "/x"}, "cannot be reached"},
		{"silent", launch.Spec{Name: "db", Protocol: launch.Postgres, URL: "postgres://u@" + silent.Addr().String() + "/x"}, "does not answer"},
		{"other protocol", launch.Spec{Name: "db", Protocol: launch.Postgres, URL: "postgres://u@" + http.Addr().String() + "/x"}, "another protocol"},
		{"redis speaks HTTP", launch.Spec{Name: "c", Protocol: launch.Redis, URL: "redis://" + http.Addr().String() + "/0"}, "another protocol"},
		{"tls required", launch.Spec{Name: "db", Protocol: launch.Postgres, URL: "postgres://u@" + closed + "/x?sslmode=require"}, "sslmode=require"},
		{"rediss", launch.Spec{Name: "c", Protocol: launch.Redis, URL: "rediss://" + closed + "/0"}, "TLS"},
		{"unknown protocol", launch.Spec{Name: "q", Protocol: "mysql", URL: "mysql://" + closed}, `protocol "mysql"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			d, err := launch.Start(ctx, tc.spec)
			if d != nil {
				_ = d.Close()
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, launch.ErrUntestable), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Less(t, time.Since(start), 15*time.Second, "bounded")
		})
	}
}

// TestSharedPostgres: a program that holds the shared server (the demo)
// gets the one its dependencies' throwaway databases are made on, and it
// outlives them until released, twice being once.
func TestSharedPostgres(t *testing.T) {
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	ctx := ctxT(t)
	srv, release, err := launch.SharedPostgres(ctx)
	require.NoError(t, err)
	dsn, err := srv.CreateDatabase(ctx, "held")
	require.NoError(t, err)
	a, err := launch.Start(ctx, launch.Spec{Name: "db", Protocol: launch.Postgres})
	require.NoError(t, err)
	assert.Contains(t, a.DirectURL, fmt.Sprintf(":%d/", srv.Port), "the dependency's database is on the held server")
	require.NoError(t, a.Close())
	c, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err, "the held server outlives the dependency")
	require.NoError(t, c.Close(ctx))
	require.NoError(t, release())
	require.NoError(t, release(), "a second release does nothing")
	_, err = pgx.Connect(ctx, dsn)
	assert.Error(t, err, "released by the last user, the server is stopped")
}
