package observe_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

func TestRedisObserver(t *testing.T) {
	addr := startRedis(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	// What a target wrote: keys of several types, a stream, a hash.
	require.NoError(t, rdb.Set(ctx, "order:1", `{"note":"`+m1+`"}`, 0).Err())
	require.NoError(t, rdb.Set(ctx, "order:2", `{"note":"`+m2+`"}`, 0).Err())
	require.NoError(t, rdb.HSet(ctx, "order:3", "note", "again "+m1, "amount", 5).Err())
	require.NoError(t, rdb.RPush(ctx, "order:4", "first", m1).Err())
	require.NoError(t, rdb.Set(ctx, "charge:"+m1+":1", "100", 0).Err())
	require.NoError(t, rdb.Set(ctx, "charge:"+m1+":2", "100", 0).Err())
	require.NoError(t, rdb.Set(ctx, "charge:"+m2+":1", "100", 0).Err())
	for _, note := range []string{m1, m2, m1} {
		require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "events", Values: map[string]any{"note": note}}).Err())
	}
	require.NoError(t, rdb.HSet(ctx, "results", "k1", `{"memo":"`+m1+`"}`, "k2", `{"memo":"`+m2+`"}`).Err())

	url := "redis://" + addr + "/0"
	t.Setenv("IDEMCHECK_TEST_REDIS_URL", url)
	streamIDs, err := rdb.XRange(ctx, "events", "-", "+").Result()
	require.NoError(t, err)
	for _, tc := range []struct {
		why   string
		redis observe.Redis
		want  []string
	}{
		{"keys whose value holds the marker, whatever their type", observe.Redis{URL: url, Keys: "order:*"}, []string{"order:1", "order:3", "order:4"}},
		{"a pattern that names the intent: every key it matches", observe.Redis{URL: "{{env.IDEMCHECK_TEST_REDIS_URL}}", Keys: "charge:{{marker}}:*"}, []string{"charge:" + m1 + ":1", "charge:" + m1 + ":2"}},
		{"a stream's entries", observe.Redis{URL: url, Stream: "events"}, []string{streamIDs[0].ID, streamIDs[2].ID}},
		{"a hash's fields", observe.Redis{URL: url, Hash: "results"}, []string{"k1"}},
	} {
		require.NoError(t, tc.redis.Validate(), tc.why)
		o := open(t, observe.Spec{Name: "orders-redis", Settle: quick, Source: tc.redis}, "")
		assert.ElementsMatch(t, tc.want, ids(t, o, m1), tc.why)
	}

	for _, bad := range []observe.Redis{{URL: url}, {URL: url, Keys: "a", Hash: "b"}, {Keys: "a"}, {URL: "http://x", Keys: "a"}, {URL: url, Stream: "s:{{marker}}"}} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	_, err = observe.Spec{Source: observe.Redis{URL: "redis://:secret@127.0.0.1:1/0", Keys: "x"}}.Open(ctx, observe.Where{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach Redis")
	assert.NotContains(t, err.Error(), "secret")

	// The server goes away: the read fails, naming the source.
	o := open(t, observe.Spec{Name: "orders-redis", Settle: failing, Source: observe.Redis{URL: url, Keys: "order:*"}}, "")
	require.NoError(t, rdb.Do(ctx, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes").Err())
	require.NoError(t, rdb.Do(ctx, "CONFIG", "SET", "requirepass", "now-needed").Err())
	err = o.Observe(ctx, fakes.NewLedger(), m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observer orders-redis (redis)")
}
