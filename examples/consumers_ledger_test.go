package examples_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/targets/consumer"
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

// TestAStalledLedgerCatchesACheckThenWriteConsumer: a consumer that looks
// for its event's row in one statement and books it in the next, on a
// broker that redelivers after the default ack deadline (1s), under
// dep-stall at its default delay (1s): the stall holds each statement for
// twice the ack deadline on a consumer, so the redelivery always meets
// the first delivery's write still held, and books the event again. Held
// for only the ack deadline, the redelivery's check raced the first
// write's commit, and the flaw was caught in about one run of three.
func TestAStalledLedgerCatchesACheckThenWriteConsumer(t *testing.T) {
	tr := verifyLedger(t, "nats", "ledger-check-first", func(c *consumer.Config) { c.AckWait = consumer.DefaultAckWait }, harness.WithSeed(11),
		harness.WithFaults(&faults.DepStall{Delay: faults.Duration(time.Second)}), harness.WithChecks("dependency.recovery"))
	var found []record.Finding
	for _, f := range tr.Findings {
		t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
		if f.Check == "dependency.recovery" && f.Fault == faults.NameDepStall {
			found = append(found, f)
		}
	}
	require.NotEmpty(t, found, "the redelivery met the stalled write and booked the event again")
	stalled := 0
	for _, in := range tr.Record.Intents {
		for _, a := range in.Attempts {
			if a.Fault == faults.NameDepStall {
				stalled++
				assert.Contains(t, a.Error, "before the attempt was given up", "the attempt ends when the stall holds the work, not at its deadline")
				assert.NotContains(t, a.Error, "within")
			}
		}
	}
	assert.Positive(t, stalled)
	assert.Contains(t, found[0].Message, "claim the event id in the database before the work", "the cause is the check before the write")
}

// TestAnEffectBookedAfterTheAckIsNotCalledLost: a consumer that
// acknowledges each event first, then books its row, writing again until
// the database takes it. Under dep-refuse the row comes a few hundred
// milliseconds after the ack, when the observer, read right after the
// ack, had found nothing. Read again before the run ends, it finds the
// row: exactly-once says that the event was acknowledged before its
// effect (the flaw a crash in between turns into a loss), not that it
// was lost.
func TestAnEffectBookedAfterTheAckIsNotCalledLost(t *testing.T) {
	tr := verifyLedger(t, "nats", "ledger-ack-first", nil, harness.WithSeed(5),
		harness.WithFaults(&faults.DepRefuse{Window: faults.Duration(300 * time.Millisecond)}), harness.WithChecks("dependency.recovery", "exactly-once"))
	var early []record.Finding
	for _, f := range tr.Findings {
		t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
		assert.NotContains(t, f.Message, "the intent was lost", "every row was booked in the end")
		if f.Check == "exactly-once" && strings.Contains(f.Message, "acknowledged before its effect was recorded") {
			early = append(early, f)
		}
	}
	require.NotEmpty(t, early, "the ack came before the row")
	assert.Equal(t, record.Major, early[0].Severity)
	assert.Equal(t, faults.NameDepRefuse, early[0].Fault)
}

// TestAStallIsNotTriedWhereTheBrokerWaitsForTheConsumer: Kafka leaves an
// event with the member processing it until it gives it up, so a
// database stalled past the ack deadline meets no second delivery:
// dep-stall would pass a consumer that checks, then writes, having
// tested nothing. It is not tried there, and the report says why.
func TestAStallIsNotTriedWhereTheBrokerWaitsForTheConsumer(t *testing.T) {
	tr := verifyLedger(t, "kafka", "ledger-check-first", nil, harness.WithSeed(3),
		harness.WithFaults(&faults.DepStall{Delay: faults.Duration(time.Second)}, &faults.DepError{}), harness.WithChecks("dependency.recovery"))
	assert.Contains(t, tr.Record.Unsupported, faults.NameDepStall)
	assert.Contains(t, tr.Record.UnsupportedWhy[faults.NameDepStall], "kafka delivers an event to another member only once the first has given it up")
	assert.NotContains(t, tr.Record.Unsupported, faults.NameDepError, "the other dependency faults are tried")
}

// verifyLedger runs the reference consumer's ledger profile on broker,
// its configuration changed by adjust (when not nil), in a test of its
// own beside the others, with a throwaway PostgreSQL; it skips the test
// without one, and fails it when the target could not be tested.
func verifyLedger(t *testing.T, broker, profile string, adjust func(*consumer.Config), opts ...harness.Option) harness.TargetResult {
	t.Helper()
	t.Parallel()
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	var adj []func(*consumer.Config)
	if adjust != nil {
		adj = append(adj, adjust)
	}
	spec := examples.ConsumerLedgerSpec(refexe.Path(t), broker, profile, adj...)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, opts...)
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error, "the target could be tested")
	return tr
}
