package examples

import (
	"time"

	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	"github.com/idemcheck/idemcheck/examples/ledger"
	"github.com/idemcheck/idemcheck/examples/mcpdb"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/mcp"
)

// The names of the reference targets that keep their effects in their own
// data, under Subcommand.
const (
	LedgerName    = reference.Ledger
	JSONStoreName = reference.JSONStore
	MCPDBName     = reference.MCPDB
	CLIDBName     = reference.CLIDB
)

// LedgerSpec is the harness spec of one ledger profile on the database
// dsn: its requests hold only numbers, so a count of its transfers table,
// read before and after each intent, attributes each new row to the
// intent in flight (by delta), and its intents run one at a time.
func LedgerSpec(exe, profile, dsn string) harness.Spec {
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
		Command:   []string{exe, Subcommand, LedgerName, "--profile", profile, "--db", dsn, "--window", "20ms", "--listen", "127.0.0.1:{{port}}"},
		ReadyPath: "/healthz",
	})
	s.Observers = []harness.ObserverStarter{observe.Spec{Name: "ledger-db", Kind: "transfer", Object: "transfers",
		Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id FROM transfers`}, Rows: true}}.Starter()}
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(8, 0)}
	return s
}

// JSONStoreSpec is the harness spec of one jsonstore profile: a CLI tool
// that keeps its records in one JSON file, counted there by a file
// observer.
func JSONStoreSpec(exe, profile string) harness.Spec {
	s := clitarget.Spec(clitarget.Config{
		Name:    "jsonstore-" + profile,
		Command: []string{exe, Subcommand, JSONStoreName, "--profile", profile, "--file", "{{state_dir}}/store.json", "--window", "250ms"},
		Operations: []clitarget.Operation{{
			Name: "put", Mutating: true,
			Args:   []string{"put", "--note", "record {{marker}}", "--amount", "{{input.amount}}"},
			Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 9999}},
		}},
	})
	s.Observers = []harness.ObserverStarter{observe.Spec{Name: "store", Kind: "record",
		Source: observe.File{Path: "{{state_dir}}/store.json", Items: "records", ID: "id"}}.Starter()}
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(8, 0)}
	return s
}

// MCPDBSpec is the harness spec of one mcpdb profile over stdio: the
// marker goes into a task's notes, and a SQL observer counts the tasks in
// the server's own SQLite database.
func MCPDBSpec(exe, profile string) harness.Spec {
	dsn := "sqlite:{{state_dir}}/tasks.db"
	s := mcp.Spec(mcp.Config{Name: "mcpdb-" + profile, Command: []string{exe, Subcommand, MCPDBName, "--profile", profile, "--db", dsn},
		Timeout: 10 * time.Second}, nil)
	s.Observers = []harness.ObserverStarter{observe.SQLStarter(observe.SQL{Name: "tasks-db", Kind: "task", DSN: dsn,
		Query: `SELECT id, title FROM tasks WHERE notes LIKE '%' || {{marker}} || '%'`})}
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(8, 0)}
	return s
}

// CLIDBSpec is the harness spec of one clidb profile: a CLI tool that
// keeps its expenses in SQLite, counted there by a SQL observer.
func CLIDBSpec(exe, profile string) harness.Spec {
	dsn := "sqlite:{{state_dir}}/expenses.db"
	s := clitarget.Spec(clitarget.Config{
		Name: "clidb-" + profile,
		// A window wide enough that a burst's processes, started one by
		// one, still overlap on a loaded machine.
		Command: []string{exe, Subcommand, CLIDBName, "--profile", profile, "--db", dsn, "--window", "300ms"},
		Operations: []clitarget.Operation{{
			Name: "add-expense", Mutating: true,
			Args:   []string{"add-expense", "--amount", "{{input.amount}}", "--memo", "expense {{marker}}"},
			Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 9999}},
		}},
	})
	s.Observers = []harness.ObserverStarter{observe.SQLStarter(observe.SQL{Name: "expenses-db", Kind: "expense", DSN: dsn,
		Query: `SELECT id, amount FROM expenses WHERE memo LIKE '%' || {{marker}} || '%'`})}
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(8, 0)}
	return s
}

// ObservedDemo returns the reference targets whose effects stay in their
// own data, each profile as built: the MCP server and the CLI tool on
// SQLite, the ledger on db (PostgreSQL when the demo has it), attributed
// by delta, and the JSON-file store.
func ObservedDemo(exe string, db OrdersDB) []DemoTarget {
	return observedDemo(Programs{Exe: exe}, db)
}

// observedDemo is ObservedDemo with the MCP server and the command-line
// tools started from the programs in progs.Tools where it is given.
func observedDemo(progs Programs, db OrdersDB) []DemoTarget {
	var out []DemoTarget
	for _, p := range mcpdb.Profiles {
		info, _ := mcpdb.Describe(p)
		out = append(out, DemoTarget{Spec: MCPDBSpec(progs.tool(MCPDBName), p), Built: info.Score, Flaw: info.Flaw})
	}
	for _, p := range clidb.Profiles {
		info, _ := clidb.Describe(p)
		out = append(out, DemoTarget{Spec: CLIDBSpec(progs.tool(CLIDBName), p), Built: info.Score, Flaw: info.Flaw})
	}
	for _, p := range ledger.Profiles {
		info, _ := ledger.Describe(p)
		dsn := "sqlite:{{state_dir}}/ledger.db"
		if db.Kind == "postgres" {
			dsn = db.DSN(LedgerName + "-" + p)
		}
		out = append(out, DemoTarget{Spec: LedgerSpec(progs.Exe, p, dsn), Built: info.Score, Flaw: info.Flaw})
	}
	for _, p := range jsonstore.Profiles {
		info, _ := jsonstore.Describe(p)
		out = append(out, DemoTarget{Spec: JSONStoreSpec(progs.tool(JSONStoreName), p), Built: info.Score, Flaw: info.Flaw})
	}
	return out
}
