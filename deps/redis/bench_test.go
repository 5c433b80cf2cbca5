package redis_test

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/idemcheck/idemcheck/deps/internal/latency"
	"github.com/idemcheck/idemcheck/deps/redis"
)

// BenchmarkProxy times commands through the proxy against the same
// commands on a direct connection, in turn: a GET, and a SET of a key
// carrying a marker; and, as the floor, a GET through a plain relay that
// copies bytes and understands nothing.
//
//	go test -run '^$' -bench BenchmarkProxy -benchtime 3s ./deps/redis/
func BenchmarkProxy(b *testing.B) {
	p := startProxy(b, redis.Config{})
	ctx := context.Background()
	d, c := client(b, server.Addr(), 3), client(b, p.Addr(), 3)
	_, key := marker()
	if err := d.Set(ctx, key, "value", 0).Err(); err != nil {
		b.Fatal(err)
	}
	b.Run("get", func(b *testing.B) {
		run := func(c *goredis.Client) func() error {
			return func() error { return c.Get(ctx, key).Err() }
		}
		latency.Pair(b, run(d), run(c))
	})
	b.Run("get/plain-relay", func(b *testing.B) {
		r := client(b, latency.Relay(b, server.Addr()), 3)
		latency.Pair(b, func() error { return d.Get(ctx, key).Err() }, func() error { return r.Get(ctx, key).Err() })
	})
	b.Run("set", func(b *testing.B) {
		run := func(c *goredis.Client) func() error {
			return func() error { return c.Set(ctx, key, "value", 0).Err() }
		}
		latency.Pair(b, run(d), run(c))
	})
}
