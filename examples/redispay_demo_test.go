package examples_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
	specs := make([]harness.Spec, len(redispayCases))
	for i, tc := range redispayCases {
		specs[i] = examples.RedispaySpec(exe, "redispay-"+tc.profile, tc.profile)
	}
	for _, seed := range []uint64{1, 7} { // 1 is the demo's
		results := verifyTogether(t, specs, harness.WithSeed(seed), harness.WithFaults(append(harness.DefaultFaults(), depFaults(t)...)...))
		for i, tc := range redispayCases {
			t.Run(fmt.Sprintf("%s/seed-%d", tc.profile, seed), func(t *testing.T) {
				info, ok := redispay.Describe(tc.profile)
				require.True(t, ok)
				tr := results[i]
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

// TestStallLongerThanTheStuckWait: the correct service answers "in
// progress" to every retry while its first attempt's Redis command is
// held by a dep-stall, and replays the payment once the stall lets the
// command go. With a stall (1 s) longer than the stuck wait (200 ms),
// the retries still wait until then: the service is not called stuck
// for the time the fault itself held its work, and pays once. The
// short-lease profile, whose lease ends inside the stall, still pays
// twice.
func TestStallLongerThanTheStuckWait(t *testing.T) {
	t.Parallel()
	if _, err := redisserver.Find(); err != nil {
		t.Skip(err)
	}
	exe := refexe.Path(t)
	stall, err := faults.Builtin().New(faults.NameDepStall, nil)
	require.NoError(t, err)
	require.Greater(t, stall.(faults.Holder).Holds(), 4*200*time.Millisecond)
	for _, tc := range []struct {
		profile string
		failing []string
	}{{"correct", nil}, {"short-lease", []string{"dependency.recovery"}}} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{examples.RedispaySpec(exe, "redispay-"+tc.profile, tc.profile)},
				harness.WithSeed(3), harness.WithStuckWait(200*time.Millisecond), harness.WithFaults(stall))
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error, "the target could be tested")
			for _, f := range tr.Findings {
				t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
			}
			assert.Equal(t, tc.failing, failing(tr))
			stalled := 0
			for _, in := range tr.Record.Intents {
				if len(in.Attempts) == 0 || in.Attempts[0].Fault != faults.NameDepStall {
					continue
				}
				stalled++
				if tc.profile == "correct" {
					assert.True(t, in.Acknowledged(), "intent %d, completed once the stall let its first attempt go", in.ID)
				}
			}
			assert.Positive(t, stalled, "an intent met the stall")
		})
	}
}
