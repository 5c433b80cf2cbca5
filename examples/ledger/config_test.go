package ledger_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

// ledgerYAML configures the ledger as a user would: a request body of
// numbers only, with no {{marker}}, and a count of the transfers table
// to attribute each new row by delta.
const ledgerYAML = `version: 1
targets:
  - name: ledger-%[2]s
    kind: http
    url: http://127.0.0.1:{{port}}
    start:
      command: [%[1]q, %[3]q, --profile, %[2]s, --db, "sqlite:{{state_dir}}/ledger.db", --window, 20ms, --listen, "127.0.0.1:{{port}}"]
      ready: {path: /healthz}
    dry_run: {query: dry_run}
    observe:
      - name: ledger-db
        kind: transfer
        count: {sql: {dsn: "sqlite:{{state_dir}}/ledger.db", query: "SELECT id FROM transfers"}, rows: true}
    operations:
      - name: transfer
        mutating: true
        method: POST
        path: /v1/transfers
        headers: {Content-Type: application/json}
        body: '{"from": {{input.from}}, "to": {{input.to}}, "amount": {{input.amount}}}'
        inputs:
          from: {int: [1, 9]}
          to: {int: [10, 19]}
          amount: {int: [1, 99999]}
`

// TestConfiguredWithoutMarker: a ledger configured in idemcheck.yaml with
// no {{marker}} anywhere is accepted, and judged by delta as its profile
// is built: the correct one passes every check, the one without a
// payload fingerprint is found out.
func TestConfiguredWithoutMarker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a full harness run per profile")
	}
	cmd := reftest.Command(t)
	for _, tc := range []struct {
		profile string
		score   int
		failing []string
	}{
		{"correct", 3, nil},
		{"no-fingerprint", 2, []string{"key.mismatch"}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			f, err := config.Parse("idemcheck.yaml", []byte(fmt.Sprintf(ledgerYAML, cmd[0], tc.profile, cmd[1])))
			require.NoError(t, err, "a count observer attributes by delta: no marker is needed")
			specs, _, err := f.Specs()
			require.NoError(t, err)
			require.Len(t, specs, 1)
			tr := reftest.Verify(t, specs[0], harness.WithTrials(0))
			assert.Equal(t, tc.failing, reftest.Failing(tr))
			assert.Equal(t, tc.score, tr.Score.Level, tr.Score.Reason)
			require.NotNil(t, tr.Record)
			assert.Equal(t, record.AttributionDelta, tr.Record.Attribution)
		})
	}
}
