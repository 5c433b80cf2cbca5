package redis_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/redis"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

// One real Redis serves every test of the package; tests keep apart by
// their keys, which carry their intents' markers.
var (
	server     *redisserver.Server
	skipReason string
)

// quiet drops go-redis's log lines (a pool failing to dial a proxy that a
// test closed on purpose).
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	goredis.SetLogger(quiet{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	s, err := redisserver.Start(ctx)
	cancel()
	switch {
	case errors.Is(err, redisserver.ErrNotInstalled):
		skipReason = err.Error()
	case err != nil:
		fmt.Fprintln(os.Stderr, "starting Redis:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if s != nil {
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping Redis:", err)
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

// startProxy starts a proxy in front of the test server and closes it when
// the test ends; it skips the test when Redis is not installed.
func startProxy(t testing.TB, cfg redis.Config) *redis.Proxy {
	t.Helper()
	if server == nil {
		t.Skipf("skipping: %s", skipReason)
	}
	if cfg.Upstream == "" {
		cfg.Upstream = server.Addr()
	}
	p, err := redis.Start(ctxT(t), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// client returns a go-redis client of addr speaking RESP protocol (2 or
// 3), that never retries (a retry would run a write twice behind the
// test's back), closed when the test ends.
func client(t testing.TB, addr string, protocol int) *goredis.Client {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: addr, Protocol: protocol, MaxRetries: -1, PoolSize: 4})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// direct returns a client of the real Redis, bypassing the proxy.
func direct(t testing.TB) *goredis.Client { return client(t, server.Addr(), 2) }

// ctxT returns a context that ends with the test, or after 30 s.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var markers int

// marker returns a fresh intent marker, and a key that carries it.
func marker() (string, string) {
	markers++
	m := fmt.Sprintf("idem-%016x", 0xbeef0000+markers)
	return m, "order:" + m
}

// arm arms r on p and fails the test on a bad rule.
func arm(t testing.TB, p deps.Proxy, r deps.Rule) *deps.Armed {
	t.Helper()
	a, err := p.Control().Arm(r)
	require.NoError(t, err)
	return a
}

// protocols are the two RESP versions go-redis speaks.
var protocols = []int{2, 3}
