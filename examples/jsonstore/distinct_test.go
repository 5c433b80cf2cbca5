package jsonstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/harness"
)

// Distinct intents sent at once: the store rewritten whole loses all but
// the last writer's record, which concurrent.distinct finds, naming the
// lost intents; the locked store keeps every one, and nothing is found.
func TestConcurrentDistinctIntents(t *testing.T) {
	for _, tc := range []struct {
		profile string
		lost    bool
	}{{"rewrite", true}, {"locked", false}} {
		t.Run(tc.profile, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{spec(t, tc.profile)}, harness.WithChecks(checks.CheckConcurrentDistinct), harness.WithSeed(1))
			require.NoError(t, err)
			require.Len(t, res.Targets, 1)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			var found []string
			for _, f := range tr.Findings {
				found = append(found, f.Message)
			}
			if tc.lost {
				require.Len(t, found, 1, "findings: %v", found)
				assert.Contains(t, found[0], "distinct intents sent at once were acknowledged but left no effect")
				assert.True(t, strings.HasPrefix(found[0], "put: "))
			} else {
				assert.Empty(t, found)
			}
		})
	}
}
