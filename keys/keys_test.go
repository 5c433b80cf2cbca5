package keys_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/keys"
)

func TestFormats(t *testing.T) {
	tests := []struct {
		format string
		want   string // a regexp every key must match
	}{
		{"", `^idk-[0-9a-f]{16}$`},
		{"token", `^idk-[0-9a-f]{16}$`},
		{"uuid", `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`},
		{"order-{{hex 16}}", `^order-[0-9a-f]{16}$`},
		{"{{hex 40}}", `^[0-9a-f]{40}$`},
		{"k_{{ uuid }}_{{hex 2}}", `^k_[0-9a-f-]{36}_[0-9a-f]{2}$`},
	}
	for _, tt := range tests {
		f, err := keys.Parse(tt.format)
		require.NoError(t, err, tt.format)
		re := regexp.MustCompile(tt.want)
		seen := map[string]bool{}
		for draw := uint64(0); draw < 200; draw++ {
			k := f.Make(draw, 7)
			assert.Regexp(t, re, k, tt.format)
			assert.False(t, seen[k], "%s: %s made twice", tt.format, k)
			seen[k] = true
			assert.Equal(t, k, f.Make(draw, 7), "the same draw and nonce make the same key")
			assert.NotEqual(t, k, f.Make(draw, 8), "another run's nonce makes another key")
		}
	}
}

func TestBadFormats(t *testing.T) {
	for format, why := range map[string]string{
		"idk-{{hex 8}}":   "at least 64",
		"{{hex 0}}":       "1 ≤ N",
		"{{hex 65}}":      "1 ≤ N",
		"{{nope}}":        "unknown placeholder",
		"a b{{uuid}}":     "cannot be part of a key",
		"{{uuid":          "without }}",
		"fixed-key":       "at least 64",
		"é{{hex 16}}":     "cannot be part of a key",
		"{{hex sixteen}}": "1 ≤ N",
	} {
		_, err := keys.Parse(format)
		require.Error(t, err, format)
		assert.Contains(t, err.Error(), why, format)
	}
}

func TestMarkersDifferPerRun(t *testing.T) {
	a, b := keys.Marker(1, 100), keys.Marker(1, 101)
	assert.Regexp(t, `^idem-[0-9a-f]{16}$`, a)
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, keys.Marker(1, 100))
	assert.NotEqual(t, keys.NewNonce(), keys.NewNonce())
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"uuid", "token", "x-{{hex 16}}", "{{uuid}}{{hex 3}}", "{{", "}}{{hex 99}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, err := keys.Parse(s)
		if err != nil {
			return
		}
		k := fm.Make(1, 2)
		if k == "" || strings.ContainsAny(k, " \r\n{}") {
			t.Fatalf("format %q made key %q", s, k)
		}
	})
}
