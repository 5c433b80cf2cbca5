package shop

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// processLockGuard is the idempotency middleware that locks in the
// process: a mutex held around "GET the key; if absent, SET it
// in_progress" on a shared Redis. Each claim draws a charge token, stored
// with the record and passed downstream as the payments key, and a claim
// left by a process that died mid-request is taken over with its token,
// so a retry after a crash charges nothing twice. With one instance the
// mutex makes the lookup and the claim one step, and the guard is correct.
// With two instances over the same Redis each mutex only excludes its own
// requests: copies that reach both instances together both miss, both
// claim (the second SET overwrites the first) and both charge, under two
// tokens. Used by the "redis-process-lock" profile.
type processLockGuard struct {
	mu   *sync.Mutex
	rdb  *redis.Client
	boot string
}

func newProcessLockGuard(d guardDeps) guard {
	return processLockGuard{mu: &sync.Mutex{}, rdb: d.redis, boot: d.boot}
}

func (g processLockGuard) begin(c call) (claim, *reply, error) {
	if c.key == "" {
		return nil, nil, errKeyRequired
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	rec, ok, err := redisGet(g.rdb, c.key)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		if rec.State == stateReleased && rec.Fingerprint == c.fingerprint {
			// A claim given up after a failed charge: the charge may have
			// happened, so the retry charges under the same token.
			rec.State, rec.Boot, rec.At = stateInProgress, g.boot, time.Now().UTC()
			if err := redisSet(g.rdb, rec); err != nil {
				return nil, nil, fmt.Errorf("%w: %v", errStore, err)
			}
			return &tokenClaim{redisClaim{rdb: g.rdb, rec: rec}}, nil, nil
		}
		if rec.State == stateInProgress && rec.Boot != g.boot && rec.Fingerprint == c.fingerprint {
			ctx, cancel := context.WithTimeout(context.Background(), redisOpTimeout)
			live, err := redisLive(ctx, g.rdb, rec.Boot)
			cancel()
			if err != nil {
				return nil, nil, err
			}
			if !live {
				// A dead process's claim: take it over with its token.
				rec.Boot, rec.At = g.boot, time.Now().UTC()
				if err := redisSet(g.rdb, rec); err != nil {
					return nil, nil, fmt.Errorf("%w: %v", errStore, err)
				}
				return &tokenClaim{redisClaim{rdb: g.rdb, rec: rec}}, nil, nil
			}
		}
		rep, err := replayOf(rec, c)
		return nil, rep, err
	}
	rec = keyRecord{Key: c.key, State: stateInProgress, Op: c.op.name, Fingerprint: c.fingerprint,
		Boot: g.boot, Token: newChargeToken(), At: time.Now().UTC()}
	if err := redisSet(g.rdb, rec); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errStore, err)
	}
	return &tokenClaim{redisClaim{rdb: g.rdb, rec: rec}}, nil, nil
}

// tokenClaim is a Redis claim whose downstream key is the claim's charge
// token, not the client's key.
type tokenClaim struct{ redisClaim }

func (c *tokenClaim) downstreamKey() string { return c.rec.Token }

func (c *tokenClaim) complete(final reply) {
	if final.status >= 500 {
		c.release()
		return
	}
	c.redisClaim.complete(final)
}

// release keeps the record, and its token, as released: the failed
// charge may have reached payments, and a retry must not charge under a
// new key.
func (c *tokenClaim) release() {
	rec := c.rec
	rec.State, rec.At = stateReleased, time.Now().UTC()
	_ = redisSet(c.rdb, rec)
}

// newChargeToken is a fresh payments key for one claim.
func newChargeToken() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "chg-" + hex.EncodeToString(b)
}
