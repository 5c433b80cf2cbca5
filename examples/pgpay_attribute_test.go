package examples_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// pgpayMarkerless is a configuration of the payments service whose
// requests carry no marker (its note is the same for every payment), its
// payments counted by delta in the database; attr is added to its
// dependency.
func pgpayMarkerless(exe, profile, attr string) string {
	return fmt.Sprintf(`version: 1
targets:
  - name: pgpay-%[2]s
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%[1]q, %[3]q, %[4]q, "--profile", %[2]q, "--listen", "127.0.0.1:{{port}}"]
      env: {DATABASE_URL: "{{deps.db.url}}"}
      ready: {path: /healthz}
    dependencies:
      db: {protocol: postgres%[5]s}
    dry_run: {query: dry_run}
    operations:
      - name: pay
        mutating: true
        method: POST
        path: /v1/payments
        headers: {Content-Type: application/json}
        body: '{"amount":{{input.amount}},"note":"payment"}'
        inputs:
          amount: {int: [100, 99999]}
    observe:
      - name: payments-db
        kind: payment
        count:
          sql: {dsn: "{{deps.db.direct_url}}", query: "SELECT id FROM payments"}
          rows: true
`, exe, profile, examples.Subcommand, examples.PgpayName, attr)
}

// runPgpayMarkerless verifies the markerless payments service of profile
// under the dependency faults, configured with attr.
func runPgpayMarkerless(t *testing.T, profile, attr string) harness.TargetResult {
	t.Helper()
	exe := refexe.Path(t)
	f, err := config.Parse("idemcheck.yaml", []byte(pgpayMarkerless(exe, profile, attr)))
	require.NoError(t, err)
	specs, opts, err := f.Specs()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	opts = append(opts, harness.WithSeed(7), harness.WithFaults(append(harness.DefaultFaults(), depFaults(t)...)...))
	res, err := harness.Verify(ctx, specs, opts...)
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error, "the target could be tested")
	for _, fd := range tr.Findings {
		t.Logf("%s %s [%s]: %s", fd.Severity, fd.Check, fd.Fault, fd.Message)
	}
	return tr
}

// checkStatus returns the status and note of check id in tr.
func checkStatus(tr harness.TargetResult, id string) (record.Status, string) {
	for _, c := range tr.Checks {
		if c.ID == id {
			return c.Status, c.Note
		}
	}
	return "", ""
}

// TestPgpayMarkerless: a payments service whose statements carry no
// marker, counted by delta, has its dependency faults act (the proxy
// attributes statements to the intent in flight by default): the correct
// profile passes dependency.recovery and crash.recovery, the one that
// replies after its commit fails them. Told to attribute by marker, the
// proxy never finds the intent's statements: the faults never act, and
// the checks they feed are not examined, with the reason, never passed.
func TestPgpayMarkerless(t *testing.T) {
	t.Parallel()
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	recovery := []string{"dependency.recovery", "crash.recovery"}
	for _, tc := range []struct {
		profile string
		want    record.Status
	}{{"correct", record.StatusPass}, {"reply-after-commit", record.StatusFail}} {
		t.Run(tc.profile, func(t *testing.T) {
			tr := runPgpayMarkerless(t, tc.profile, "")
			assert.Empty(t, tr.Record.Unfired(), "every dependency fault acted")
			for _, id := range recovery {
				st, note := checkStatus(tr, id)
				assert.Equal(t, tc.want, st, "%s: %s", id, note)
			}
		})
	}
	t.Run("attribute marker", func(t *testing.T) {
		tr := runPgpayMarkerless(t, "reply-after-commit", ", attribute: marker")
		assert.NotEmpty(t, tr.Record.Unfired(), "the faults armed by marker never acted")
		const why = "the proxy never saw this intent's marker in a statement: store the marker with the rows, or set attribute: in-flight"
		for _, id := range recovery {
			st, note := checkStatus(tr, id)
			assert.NotEqual(t, record.StatusPass, st, id)
			assert.Contains(t, note, "not examined", id)
			assert.Contains(t, note, why, id)
		}
		reasons := map[string]bool{}
		for _, u := range tr.Record.Unexamined {
			if u.Check == "dependency.recovery" {
				reasons[u.Reason] = true
			}
		}
		assert.Contains(t, fmt.Sprint(reasons), why, "the run lists what was not examined, and why")
	})
}
