package clidb_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// spec is the harness spec of one profile: the CLI adapter runs the tool,
// the marker rides in the memo, and a SQL observer counts the expenses in
// the tool's own SQLite database.
func spec(t *testing.T, profile string) harness.Spec {
	dsn := "sqlite:{{state_dir}}/expenses.db"
	s := clitarget.Spec(clitarget.Config{
		Name:    "clidb-" + profile,
		Command: append(reftest.Command(t), "--profile", profile, "--db", dsn, "--window", "20ms"),
		Operations: []clitarget.Operation{{
			Name: "add-expense", Mutating: true,
			Args:   []string{"add-expense", "--amount", "{{input.amount}}", "--memo", "expense {{marker}}"},
			Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 9999}},
		}},
	})
	s.Observers = []harness.ObserverStarter{observe.SQLStarter(observe.SQL{Name: "expenses-db", Kind: "expense", DSN: dsn,
		Query: `SELECT id, amount FROM expenses WHERE memo LIKE '%' || {{marker}} || '%'`})}
	// Every attempt is a process: fewer bursts and late-retry fillers.
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(24, 0)}
	return s
}

// Each profile scores what it is built for, judged by the harness on what
// the SQL observer counted.
func TestScores(t *testing.T) {
	reftest.Scores(t, clidb.Profiles, clidb.Describe, spec)
}
