package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/latency"
)

// BenchmarkProxy times statements through the proxy against the same
// statements on a direct connection, in turn, for both protocols: a read
// of one row by its primary key, and a write carrying a marker (the work the
// proxy does most: attribution, transaction following); and, as the
// floor, the read through a plain relay that copies bytes and understands
// nothing.
//
//	go test -run '^$' -bench BenchmarkProxy -benchtime 3s ./deps/postgres/
func BenchmarkProxy(b *testing.B) {
	direct, proxied, _ := setup(b)
	ctx := context.Background()
	d, p := connect(b, direct), connect(b, proxied)
	if _, err := d.Exec(ctx, `INSERT INTO t (key, note) VALUES ('k', 'row')`); err != nil {
		b.Fatal(err)
	}
	for _, m := range modes {
		b.Run("read/"+m.name, func(b *testing.B) {
			run := func(c *pgx.Conn) func() error {
				return func() error {
					var note string
					return c.QueryRow(ctx, `SELECT note FROM t WHERE id = $1`, m.mode, 1).Scan(&note)
				}
			}
			latency.Pair(b, run(d), run(p))
		})
		b.Run("write/"+m.name, func(b *testing.B) {
			run := func(c *pgx.Conn) func() error {
				return func() error {
					_, err := c.Exec(ctx, insert, m.mode, marker(7))
					return err
				}
			}
			latency.Pair(b, run(d), run(p))
		})
	}
	b.Run("read/extended/plain-relay", func(b *testing.B) {
		relayed, err := deps.ReplaceHost(direct, latency.Relay(b, upstream()))
		if err != nil {
			b.Fatal(err)
		}
		r := connect(b, relayed)
		read := func(c *pgx.Conn) func() error {
			return func() error {
				var note string
				return c.QueryRow(ctx, `SELECT note FROM t WHERE id = $1`, 1).Scan(&note)
			}
		}
		latency.Pair(b, read(d), read(r))
	})
}
