package config_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
)

// TestLateRetrySettings: retry.late_keys and retry.late_delay reach the
// harness's options, zero keeps its defaults, and a value out of range is
// refused with its line and field.
func TestLateRetrySettings(t *testing.T) {
	options := func(t *testing.T, retry string) harness.Options {
		t.Helper()
		f, err := config.Parse("idemcheck.yaml", []byte(minimalCLI+retry))
		require.NoError(t, err)
		_, opts, err := f.Specs()
		require.NoError(t, err)
		var o harness.Options
		for _, fn := range opts {
			fn(&o)
		}
		return o
	}
	o := options(t, "retry:\n  late_keys: 200\n  late_delay: 1500ms\n")
	assert.Equal(t, 200, o.LateKeys)
	assert.Equal(t, 1500*time.Millisecond, o.LateDelay)
	o = options(t, "")
	assert.Zero(t, o.LateKeys, "zero: the harness fills in its default")
	assert.Zero(t, o.LateDelay)

	for _, tc := range []struct{ retry, field string }{
		{"retry:\n  late_keys: -1\n", "retry.late_keys"},
		{"retry:\n  late_keys: 100000\n", "retry.late_keys"},
		{"retry:\n  late_delay: 2h\n", "retry.late_delay"},
	} {
		_, err := config.Parse("idemcheck.yaml", []byte(minimalCLI+tc.retry))
		require.Error(t, err, tc.retry)
		assert.Contains(t, err.Error(), tc.field)
		line := strings.Count(minimalCLI, "\n") + 2
		assert.Contains(t, err.Error(), fmt.Sprintf("idemcheck.yaml:%d", line), "the line of the field")
	}
}
