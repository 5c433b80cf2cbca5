package examples_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// TestConsumerLedger scores a queue consumer that books its events in its
// own PostgreSQL database, counted there by an observer, with no fake:
// by default it is tried with its database's faults as well as the
// broker's redeliveries, and a consumer that inserts a row per delivery
// is caught by both, while one whose row and de-duplication are one
// statement scores 3 though retry.after-fault, which only downstream
// faults it has none of would show, does not run.
func TestConsumerLedger(t *testing.T) {
	t.Parallel()
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	exe := refexe.Path(t)
	for _, tc := range []struct {
		profile string
		score   int
		// failing are checks that must fail (others may too).
		failing []string
	}{
		{"ledger", 3, nil},
		{"ledger-plain", 0, []string{"consumer.redelivery", "crash.recovery", "dependency.recovery"}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{examples.ConsumerLedgerSpec(exe, "nats", tc.profile)}, harness.WithSeed(7))
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error, "the target could be tested")
			for _, f := range tr.Findings {
				t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
			}
			t.Logf("score %d: %s; unsupported: %v", tr.Score.Level, tr.Score.Reason, tr.Record.Unsupported)
			for _, n := range []string{faults.NameDepError, faults.NameDepResetAfterCommit, faults.NameDepStall, faults.NameCrashAfterCommit} {
				assert.Contains(t, tr.Record.Faults, n, "a consumer that declares a database is tried with %s by default", n)
				assert.NotContains(t, tr.Record.Unsupported, n)
			}
			assert.Contains(t, tr.Record.Unsupported, "broker-slow-consumer", "no fake to hold: the slow consumer is dep-stall's")
			assert.Equal(t, tc.score, tr.Score.Level)
			status := map[string]record.Status{}
			for _, c := range tr.Checks {
				status[c.ID] = c.Status
			}
			if tc.failing == nil {
				assert.Empty(t, tr.Findings)
				assert.Equal(t, record.StatusPass, status["dependency.recovery"])
				assert.Equal(t, record.StatusPass, status["consumer.redelivery"])
			}
			for _, id := range tc.failing {
				assert.Equal(t, record.StatusFail, status[id], id)
			}
		})
	}
}
