package shop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisTTL is how long a key's record lives in Redis, as the usual
// middleware keeps it: a day.
const redisTTL = 24 * time.Hour

// redisOpTimeout bounds one Redis command: the guard never waits for ever
// on its store.
const redisOpTimeout = 5 * time.Second

// redisKey namespaces the client's key in the shared Redis.
func redisKey(key string) string { return "shop:idem:" + key }

func redisGet(rdb *redis.Client, key string) (keyRecord, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisOpTimeout)
	defer cancel()
	raw, err := rdb.Get(ctx, redisKey(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return keyRecord{}, false, nil
	}
	if err != nil {
		return keyRecord{}, false, fmt.Errorf("%w: %v", errStore, err)
	}
	var rec keyRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return keyRecord{}, false, fmt.Errorf("%w: record of %s: %v", errStore, key, err)
	}
	return rec, true, nil
}

func redisSet(rdb *redis.Client, rec keyRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), redisOpTimeout)
	defer cancel()
	return rdb.Set(ctx, redisKey(rec.Key), raw, redisTTL).Err()
}

func redisDel(rdb *redis.Client, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), redisOpTimeout)
	defer cancel()
	_ = rdb.Del(ctx, redisKey(key)).Err()
}

// replayOf answers a call from an existing record: 409 while it is in
// progress, 422 for another payload, the stored reply when complete.
func replayOf(rec keyRecord, c call) (*reply, error) {
	switch {
	case rec.Fingerprint != c.fingerprint:
		return nil, errKeyReused
	case rec.State != stateComplete:
		return nil, errInFlight
	}
	rep := rec.storedReply()
	return &rep, nil
}

// redisCheckThenSetGuard is the textbook Redis pattern: GET the key; if
// absent, SET it in_progress; do the work; SET the result. The GET and
// the first SET are two round trips with nothing tying them together, so
// requests with the same key that arrive together all miss and all charge.
// No key is passed downstream, so payments cannot catch it either; and an
// in_progress record left by a crash stays for a day (409). Used by the
// "redis-check-then-set" profile.
type redisCheckThenSetGuard struct{ rdb *redis.Client }

func (g redisCheckThenSetGuard) begin(c call) (claim, *reply, error) {
	if c.key == "" {
		return nil, nil, errKeyRequired
	}
	rec, ok, err := redisGet(g.rdb, c.key)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		rep, err := replayOf(rec, c)
		return nil, rep, err
	}
	rec = keyRecord{Key: c.key, State: stateInProgress, Op: c.op.name, Fingerprint: c.fingerprint, At: time.Now().UTC()}
	if err := redisSet(g.rdb, rec); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errStore, err)
	}
	return &redisClaim{rdb: g.rdb, rec: rec}, nil, nil
}

// redisClaim completes or releases a key claimed in Redis.
type redisClaim struct {
	rdb *redis.Client
	rec keyRecord
	// passKey passes the client's key downstream.
	passKey bool
	// keepReleased keeps a released key as a released record, bound to
	// its payload, rather than deleting it (see redisAtomicGuard).
	keepReleased bool
}

func (c *redisClaim) downstreamKey() string {
	if c.passKey {
		return c.rec.Key
	}
	return ""
}

func (c *redisClaim) prepare(reply) {}

func (c *redisClaim) complete(final reply) {
	if final.status >= 500 {
		c.release()
		return
	}
	rec := c.rec
	body := final.body
	rec.State, rec.Status, rec.Reply, rec.At = stateComplete, final.status, &body, time.Now().UTC()
	_ = redisSet(c.rdb, rec)
}

func (c *redisClaim) release() {
	if !c.keepReleased {
		redisDel(c.rdb, c.rec.Key)
		return
	}
	// Only if the record is still this claim's: a claim another instance
	// took over is that instance's to complete or release.
	mine, err := json.Marshal(c.rec)
	if err != nil {
		return
	}
	rec := c.rec
	rec.State, rec.Boot, rec.At = stateReleased, "", time.Now().UTC()
	released, err := json.Marshal(rec)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), redisOpTimeout)
	defer cancel()
	_ = takeOver.Run(ctx, c.rdb, []string{redisKey(rec.Key)}, mine, released, redisTTL.Milliseconds()).Err()
}

// redisAtomicGuard is the correct guard on Redis: one SET NX claims the
// key atomically; a claim made by a start of the shop that is no longer
// connected to Redis (redisLive) belonged to a process that died
// mid-request and is taken over with a compare-and-set; the key goes
// downstream, so a takeover cannot charge twice. A claim of another live
// instance is in flight (409), so any number of instances can share the
// store. A claim given up after a failed charge is kept as released, bound
// to its payload: the charge may have happened, so a retry of the same
// request claims it again (compare-and-set) and another payload is refused
// (422). Used by the "redis-correct" profile.
type redisAtomicGuard struct {
	rdb  *redis.Client
	boot string
}

// takeOver replaces the record at KEYS[1] by ARGV[2] only if it still
// holds ARGV[1]: the compare-and-set of a stale claim.
var takeOver = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
end
return false`)

func (g redisAtomicGuard) begin(c call) (claim, *reply, error) {
	if c.key == "" {
		return nil, nil, errKeyRequired
	}
	rec := keyRecord{Key: c.key, State: stateInProgress, Op: c.op.name, Fingerprint: c.fingerprint, Boot: g.boot, At: time.Now().UTC()}
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), redisOpTimeout)
	defer cancel()
	ok, err := g.rdb.SetNX(ctx, redisKey(c.key), raw, redisTTL).Result()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errStore, err)
	}
	if ok {
		return g.claimed(rec), nil, nil
	}
	old, err := g.rdb.Get(ctx, redisKey(c.key)).Bytes()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errStore, err) // gone meanwhile: the client retries
	}
	var prev keyRecord
	if err := json.Unmarshal(old, &prev); err != nil {
		return nil, nil, fmt.Errorf("%w: record of %s: %v", errStore, c.key, err)
	}
	released := prev.State == stateReleased
	if prev.Fingerprint == c.fingerprint && (released || prev.State == stateInProgress && prev.Boot != g.boot) {
		if !released {
			live, err := redisLive(ctx, g.rdb, prev.Boot)
			if err != nil {
				return nil, nil, err
			}
			if live {
				return nil, nil, errInFlight // another instance is at work on it
			}
		}
		res, err := takeOver.Run(ctx, g.rdb, []string{redisKey(c.key)}, old, raw, redisTTL.Milliseconds()).Result()
		if err == nil && res != nil {
			return g.claimed(rec), nil, nil
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, nil, fmt.Errorf("%w: %v", errStore, err)
		}
		return nil, nil, errInFlight // another request took it over first
	}
	rep, err := replayOf(prev, c)
	return nil, rep, err
}

// claimed is the claim of rec, made by this guard.
func (g redisAtomicGuard) claimed(rec keyRecord) *redisClaim {
	return &redisClaim{rdb: g.rdb, rec: rec, passKey: true, keepReleased: true}
}

// redisClientName names a shop's Redis connections after its boot id.
func redisClientName(boot string) string { return "shop-" + boot }

// redisLive says whether the shop started with boot id boot still has a
// connection to Redis. A process that dies loses its connections with it
// (the kernel closes them), so a claim whose owner has none is a dead
// process's; one whose owner is connected is another instance's, in
// flight.
func redisLive(ctx context.Context, rdb *redis.Client, boot string) (bool, error) {
	if boot == "" {
		return false, nil
	}
	list, err := rdb.ClientList(ctx).Result()
	if err != nil {
		return false, fmt.Errorf("%w: %v", errStore, err)
	}
	return strings.Contains(list, " name="+redisClientName(boot)+" "), nil
}
