package shop_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

// startRedis starts a real redis-server for one test, or skips the test
// without one (Debian: apt-get install redis-server).
func startRedis(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := redisserver.Start(ctx)
	if errors.Is(err, redisserver.ErrNotInstalled) {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Stop()) })
	return s.Addr()
}

// The Redis profiles without a flaw of their own (redis-process-lock is
// correct as one instance) keep a key whose charge failed after it
// happened bound to its payload, through a restart too: another amount
// under the key is refused (422) and the retry of the first request
// completes it with the charge that was made.
func TestRedisReleasedKeyStaysBoundToItsPayload(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	for _, profile := range []string{"redis-correct", "redis-process-lock"} {
		t.Run(profile, func(t *testing.T) {
			pay := newPayments(t)
			key := "k-" + profile
			opts := shop.Options{Profile: profile, StateDir: t.TempDir(), Redis: addr}
			s := mustServe(t, opts, pay)
			pay.FailNextAfterCharge()
			failed := s.post(t, "/orders", key, order("cus_1", 1234, "m"))
			require.Equal(t, http.StatusBadGateway, failed.Status, failed)
			other := s.post(t, "/orders", key, order("cus_1", 99, "m"))
			assert.Equal(t, http.StatusUnprocessableEntity, other.Status, other)
			s.stop()

			s = mustServe(t, opts, pay)
			other = s.post(t, "/orders", key, order("cus_1", 99, "m"))
			assert.Equal(t, http.StatusUnprocessableEntity, other.Status, "after a restart: %s", other)
			retry := s.post(t, "/orders", key, order("cus_1", 1234, "m"))
			require.Equal(t, http.StatusOK, retry.Status, retry)
			assert.Equal(t, "ch_000001", retry.Data["charge"], "the charge the failed call made")
			assert.Equal(t, 1, pay.Count())

			// Without a restart, the released record (not the failed
			// claim, still in progress) is what the retry finds.
			pay.FailNextAfterCharge()
			failed = s.post(t, "/orders", key+"-2", order("cus_1", 77, "m"))
			require.Equal(t, http.StatusBadGateway, failed.Status, failed)
			retry = s.post(t, "/orders", key+"-2", order("cus_1", 77, "m"))
			require.Equal(t, http.StatusOK, retry.Status, "released, not in flight: %s", retry)
			assert.Equal(t, 2, pay.Count())
		})
	}
}
