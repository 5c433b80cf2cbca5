package examples_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/examples/redispay"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/redisserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
)

// redispayCases are the Redis payments service's profiles, exactly the
// checks each one's flaw fails and the cause its finding states; the
// score is the one it is built for.
var redispayCases = []struct {
	profile string
	failing []string
	cause   string
}{
	{"correct", nil, ""},
	{"any-status", []string{"dependency.recovery"}, "stores a failure as the key's reply"},
	{"short-lease", []string{"dependency.recovery"}, "shorter than a stalled request"},
}

// TestRedispay scores every profile of the Redis payments service on a
// throwaway Redis behind the dependency proxy, under the dependency
// faults, with the demo's seed and another: the correct one scores 3 with
// no finding, each flawed one is caught by the check its flaw fails.
func TestRedispay(t *testing.T) {
	t.Parallel()
	if _, err := redisserver.Find(); err != nil {
		t.Skip(err)
	}
	exe := refexe.Path(t)
	require.Len(t, redispayCases, len(redispay.Profiles))
	for _, seed := range []uint64{1, 7} { // 1 is the demo's
		for _, tc := range redispayCases {
			t.Run(fmt.Sprintf("%s/seed-%d", tc.profile, seed), func(t *testing.T) {
				info, ok := redispay.Describe(tc.profile)
				require.True(t, ok)
				ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
				defer cancel()
				res, err := harness.Verify(ctx, []harness.Spec{examples.RedispaySpec(exe, "redispay-"+tc.profile, tc.profile)},
					harness.WithSeed(seed), harness.WithFaults(append(harness.DefaultFaults(), depFaults(t)...)...))
				require.NoError(t, err)
				tr := res.Targets[0]
				require.Empty(t, tr.Error, "the target could be tested")
				stated := false
				for _, f := range tr.Findings {
					t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
					stated = stated || (tc.cause != "" && strings.Contains(f.Message, tc.cause))
				}
				assert.Equal(t, tc.cause != "", stated, "the finding states the cause %q", tc.cause)
				t.Logf("unsupported: %v", tr.Record.Unsupported)
				assert.Equal(t, tc.failing, failing(tr))
				assert.Equal(t, info.Score, tr.Score.Level, tr.Score.Reason)
				for _, n := range []string{faults.NameDepError, faults.NameDepStall, faults.NameCrashAfterCommit, faults.NameCrashBeforeCommit} {
					assert.NotContains(t, tr.Record.Unsupported, n, "a target counted only by observers takes %s", n)
				}
			})
		}
	}
}
