package shop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzCreateBody sends arbitrary bodies to POST /orders and
// /subscriptions: whatever arrives, the shop answers a JSON envelope with a
// 200 or a 4xx, never a 5xx, and charges only when it says it created.
func FuzzCreateBody(f *testing.F) {
	for _, seed := range []string{
		`{"customer":"cus_1","amount":1234,"memo":"idem-0123456789abcdef"}`,
		`{"customer":"cus_1","plan":"pro"}`,
		`{"customer":"","amount":-1}`,
		`{"amount":1e400}`,
		`{"customer":"c","amount":12,"memo":null}`,
		`[]`, `null`, `{}{}`, `{"customer":"c","amount":1} trailing`, "",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	pay := newPayments(f)
	s := mustStartShop(f, "correct", pay)
	var attempts atomic.Int64
	f.Fuzz(func(t *testing.T, body string, subscription bool) {
		path := "/orders"
		if subscription {
			path = "/subscriptions"
		}
		before := pay.Count()
		key := fmt.Sprintf("fuzz-%d", attempts.Add(1)) // a fresh intent per input
		req, err := http.NewRequest(http.MethodPost, s.url+path, bytes.NewBufferString(body))
		require.NoError(t, err)
		req.Header.Set("Idempotency-Key", key)
		resp, err := s.client.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		var env struct {
			OK     *bool  `json:"ok"`
			Effect string `json:"effect"`
		}
		require.NoError(t, json.Unmarshal(raw, &env), "not JSON: %s", raw)
		require.NotNil(t, env.OK, "no ok field: %s", raw)
		assert.Less(t, resp.StatusCode, 500, "%s", raw)
		charged := pay.Count() - before
		assert.Equal(t, env.Effect == "created", charged == 1, "effect %q with %d charges: %s", env.Effect, charged, raw)
	})
}
