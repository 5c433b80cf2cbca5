package ledger_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
		Command:   append(reftest.Command(t), "--profile", profile, "--db", dsn, "--window", "20ms", "--listen", "127.0.0.1:{{port}}"),
		ReadyPath: "/healthz",
	})
	s.Observers = []harness.ObserverStarter{observe.Spec{Name: "ledger-db", Kind: "transfer",
		Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id FROM transfers`}, Rows: true}}.Starter()}
	return s
}

// Each profile scores what it is built for, judged by the harness on what
// the count by delta saw: today's probes attempt one intent at a time but
// for the late retry's fillers, whose effects no check judges.
func TestScores(t *testing.T) {
	t.Parallel()
	reftest.Scores(t, ledger.Profiles, ledger.Describe, func(t *testing.T, profile string) harness.Spec {
		return spec(t, profile, "sqlite:{{state_dir}}/ledger.db")
	})
}

// What a target whose effects only an observer counts, and that declares
// no dependency, leaves unexamined says why for each part: the faults
// that act at a downstream call have no fake to act in, the client that
// leaves has no fake to time it, and dependency.recovery has no
// dependency, not the downstream faults' reason.
func TestNotExaminedReasons(t *testing.T) {
	if testing.Short() {
		t.Skip("a harness run")
	}
	tr := reftest.Verify(t, spec(t, "correct", "sqlite:{{state_dir}}/ledger.db"),
		harness.WithChecks(harness.CheckRetryAfterFault, "dependency.recovery"))
	reasons := map[string]string{}
	for _, u := range tr.NotExamined {
		reasons[u.Subject()] = u.Reason
	}
	assert.Contains(t, reasons["retry.after-fault under downstream-503"], "no fake sees the downstream call", reasons)
	assert.Contains(t, reasons["retry.after-fault under client-disconnect"], "the client leaves when a fake sees the target's downstream call", reasons)
	dep := reasons["dependency.recovery"]
	assert.Contains(t, dep, "declares no dependency (dependencies:)", reasons)
	assert.NotContains(t, dep, "fake", reasons)
}
