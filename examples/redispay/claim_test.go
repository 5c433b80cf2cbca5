package redispay

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/internal/payapi"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

// TestClaimLeftByAnEndedRequest: a claim of this run whose request is over
// — its SETNX, held up on a stalled connection, reached Redis after the
// request had given up and released the claim — is taken over by the next
// request with the key, which pays once; a claim whose request is still in
// progress is answered 409, as a claim is.
func TestClaimLeftByAnEndedRequest(t *testing.T) {
	srv := redisserver.Must(t)
	opts, err := redis.ParseURL(srv.URL(0))
	require.NoError(t, err)
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	s := &server{profile: "correct", rdb: rdb, run: "r1"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := payapi.Payment{Amount: 100, Note: "n"}

	live := "P|r1|901|100"
	s.setLive(live, true)
	require.NoError(t, rdb.Set(ctx, "idem:busy", live, time.Minute).Err())
	assert.Equal(t, payapi.InProgress, s.pay(ctx, "busy", p), "a request of this run still at it")

	require.NoError(t, rdb.Set(ctx, "idem:left", "P|r1|902|100", time.Minute).Err())
	got := s.pay(ctx, "left", p)
	assert.Equal(t, http.StatusCreated, got.Status, "the claim of an ended request is taken over: %+v", got)
	again := s.pay(ctx, "left", p)
	assert.Equal(t, got.ID, again.ID, "and the payment is replayed after")
	n, err := rdb.XLen(ctx, stream).Result()
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "one payment")
}
