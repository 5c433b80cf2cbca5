package httpfake_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

func TestKeys(t *testing.T) {
	var ks httpfake.Keys
	res, _ := ks.Claim("k", "fp1")
	require.Equal(t, httpfake.Claimed, res)
	res, _ = ks.Claim("k", "fp1")
	assert.Equal(t, httpfake.InFlight, res, "claimed, not yet complete")

	ks.Release("k")
	res, _ = ks.Claim("k", "fp2")
	assert.Equal(t, httpfake.Claimed, res, "a released key is free, for any fingerprint")

	ks.Complete("k", httpfake.JSON(202, map[string]string{"id": "m1"}))
	res, rp := ks.Claim("k", "fp2")
	assert.Equal(t, httpfake.Done, res)
	assert.True(t, rp.Replayed)
	assert.Equal(t, 202, rp.Status)
	assert.JSONEq(t, `{"id":"m1"}`, string(rp.Body))
	rp.Header.Set("X", "changed")
	_, again := ks.Claim("k", "fp2")
	assert.Empty(t, again.Header.Get("X"), "a replay's headers are a copy")

	res, _ = ks.Claim("k", "fp1")
	assert.Equal(t, httpfake.Mismatch, res)
	ks.Release("k")
	res, _ = ks.Claim("k", "fp2")
	assert.Equal(t, httpfake.Done, res, "a completed key is never released")
}

func TestDecodeRule(t *testing.T) {
	r, err := httpfake.DecodeRule(strings.NewReader(`{"marker":"idem-00000000000000aa","times":2,"action":"delay","delay":"5ms"}`), nil, "")
	require.NoError(t, err)
	assert.Equal(t, fakes.Rule{Marker: "idem-00000000000000aa", Times: 2, Action: fakes.Delay, Delay: 5 * time.Millisecond}, r)

	r, err = httpfake.DecodeRule(strings.NewReader(`{"action":"delay","delay":1000}`), nil, "")
	require.NoError(t, err)
	assert.Equal(t, time.Microsecond, r.Delay)

	known := func(a fakes.Action) bool { return a == "custom" }
	_, err = httpfake.DecodeRule(strings.NewReader(`{"action":"custom"}`), known, "custom")
	assert.NoError(t, err)
	_, err = httpfake.DecodeRule(strings.NewReader(`{"action":"other"}`), known, "custom")
	assert.ErrorContains(t, err, "custom")
	for _, bad := range []string{`{"action":"fail-before","extra":1}`, `{"action":"fail-before","times":-1}`, `{"action":"delay","delay":"-1s"}`, `{"action":"delay","delay":"soon"}`, `{"action":"delay","delay":true}`} {
		_, err := httpfake.DecodeRule(strings.NewReader(bad), nil, "")
		assert.Error(t, err, bad)
	}
}

func TestCheckLoopback(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:0", "[::1]:80", "localhost:1"} {
		assert.NoError(t, httpfake.CheckLoopback("x", ok))
	}
	for _, bad := range []string{"0.0.0.0:0", "example.com:80", "127.0.0.1"} {
		assert.Error(t, httpfake.CheckLoopback("x", bad))
	}
}
