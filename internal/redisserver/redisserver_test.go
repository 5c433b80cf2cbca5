package redisserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/internal/redisserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestStartSetGetStop starts a real server, writes and reads a key, and
// stops it.
func TestStartSetGetStop(t *testing.T) {
	s := redisserver.Must(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opt, err := redis.ParseURL(s.URL(0))
	require.NoError(t, err)
	c := redis.NewClient(opt)
	defer c.Close()
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
	v, err := c.Get(ctx, "k").Result()
	require.NoError(t, err)
	require.Equal(t, "v", v)
	require.NoError(t, s.Stop())
	require.Error(t, c.Ping(ctx).Err(), "a stopped server answers no more")
}
