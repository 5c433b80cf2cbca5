package ledger_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/ledger"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// spec is the harness spec of one profile: the HTTP adapter posts
// transfers whose body holds only numbers, and a count of the transfers
// table attributes each change to the intent in flight.
func spec(t *testing.T, profile, dsn string) harness.Spec {
	exe, err := os.Executable()
	require.NoError(t, err)
	s := httptarget.Spec(httptarget.Config{
		Name:    "ledger-" + profile,
		BaseURL: "http://127.0.0.1:{{port}}",
		DryRun:  &httptarget.DryRun{Query: "dry_run"},
		Operations: []httptarget.Operation{{
			Name: "transfer", Mutating: true, Method: "POST", Path: "/v1/transfers",
			Headers: map[string]string{"Content-Type": "application/json"},
			Body:    `{"from": {{input.from}}, "to": {{input.to}}, "amount": {{input.amount}}}`,
			Inputs: map[string]harness.Input{
				"from": {Kind: "int", Min: 1, Max: 9}, "to": {Kind: "int", Min: 10, Max: 19}, "amount": {Kind: "int", Min: 1, Max: 99999},
			},
		}},
	}, &httptarget.Launch{
		Command:   []string{exe, reftest.ServeArg, "--profile", profile, "--db", dsn, "--window", "20ms", "--listen", "127.0.0.1:{{port}}"},
		ReadyPath: "/healthz",
	})
	s.Observers = []harness.ObserverStarter{observe.Spec{Name: "ledger-db", Kind: "transfer",
		Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id FROM transfers`}, Rows: true}}.Starter()}
	return s
}

func TestScores(t *testing.T) {
	if testing.Short() {
		t.Skip("a full harness run per profile")
	}
	for _, profile := range ledger.Profiles {
		t.Run(profile, func(t *testing.T) {
			info, err := ledger.Describe(profile)
			require.NoError(t, err)
			tr := reftest.Verify(t, spec(t, profile, "sqlite:{{state_dir}}/ledger.db"))
			assert.Equal(t, info.Score, tr.Score.Level, tr.Score.Reason)
			assert.Equal(t, info.Failing, reftest.Failing(tr))
		})
	}
}
