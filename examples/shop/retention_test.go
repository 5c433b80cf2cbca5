package shop_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// TestBoundedKeysForgetsTheLeastRecentlyUsed: a store of 3 keys replays
// a key while fewer than 3 others came after its last use, charges again
// once 3 did, and keeps the same retention across a restart.
func TestBoundedKeysForgetsTheLeastRecentlyUsed(t *testing.T) {
	pay := newPayments(t)
	opts := shop.Options{Profile: "bounded-keys", StateDir: t.TempDir(), Keys: 3}
	s := mustServe(t, opts, pay)
	send := func(s *testShop, k string) result {
		t.Helper()
		r := s.post(t, "/orders", testKey("bounded", k), order("cus_1", 100, "m-"+k))
		require.Equal(t, http.StatusOK, r.Status, r)
		return r
	}
	first := send(s, "a")
	send(s, "b")
	send(s, "c")
	assert.Equal(t, first.ID(), send(s, "a").ID(), "2 other keys: remembered (and used again)")
	send(s, "d")
	send(s, "e")
	assert.Equal(t, 5, pay.Count())
	send(s, "b") // 3 others since its last use: forgotten
	assert.Equal(t, 6, pay.Count(), "a retry after 3 other keys charges again")

	s.stop()
	s = mustServe(t, opts, pay)
	send(s, "e") // d, e, b were the last 3: remembered across the restart
	assert.Equal(t, 6, pay.Count())
	send(s, "a")
	assert.Equal(t, 7, pay.Count(), "a key evicted before the restart stays forgotten")
}

// TestForgetfulProfilesRefuseBadRetention: --keys and --ttl out of range
// are usage errors.
func TestForgetfulProfilesRefuseBadRetention(t *testing.T) {
	for _, args := range [][]string{
		{"--profile", "bounded-keys", "--keys", "-1"},
		{"--profile", "expiring-keys", "--ttl", "48h"},
	} {
		var stdout, stderr bytes.Buffer
		code := shop.Main(t.Context(), append(args, "--payments", "http://127.0.0.1:1"), &stdout, &stderr)
		assert.Equal(t, 2, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "out of range", fmt.Sprint(args))
	}
}
