package redis_test

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/redis"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

// How a run uses the proxy: Redis is started (or given), the proxy put in
// front of it, and the target handed the proxy's URL; a crash point is
// armed for one intent: the hook runs just before that intent's write
// reaches Redis, and the harness kills the target there.
func Example() {
	ctx := context.Background()
	rs, err := redisserver.Start(ctx) // or the target's own Redis
	if err != nil {
		panic(err)
	}
	defer rs.Stop()
	p, err := redis.Start(ctx, redis.Config{Upstream: rs.Addr()})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	targetURL, _ := deps.ReplaceHost(rs.URL(0), p.Addr()) // {{deps.NAME.url}}
	_ = targetURL

	intent := "idem-0123456789abcdef"
	killed := make(chan struct{})
	_, _ = p.Control().Arm(deps.Rule{Intent: intent, Action: deps.BeforeCommit,
		Hook: func(ctx context.Context, ev deps.Event) {
			// kill the target here; its connection then closes
			close(killed)
		}})
	p.Control().SetInFlight(intent) // for a target whose keys carry no marker
	select {
	case <-killed:
	case <-time.After(10 * time.Second):
	}
	p.Control().SetInFlight("")
	p.Control().Disarm(intent)
}
