package mcpdb_test

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/mcpdb"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	"github.com/idemcheck/idemcheck/targets/mcp"
)

// spec is the harness spec of one profile over stdio: the MCP adapter
// discovers the tools (the marker goes into notes, a free-text argument),
// and a SQL observer counts the tasks in the server's own SQLite
// database.
func spec(t *testing.T, profile string) harness.Spec {
	dsn := "sqlite:{{state_dir}}/tasks.db"
	s := mcp.Spec(mcp.Config{Name: "mcpdb-" + profile, Command: command(t, profile, dsn), Timeout: 10 * time.Second}, nil)
	s.Observers = []harness.ObserverStarter{observe.SQLStarter(observe.SQL{Name: "tasks-db", Kind: "task", DSN: dsn,
		Query: `SELECT id, title FROM tasks WHERE notes LIKE '%' || {{marker}} || '%'`})}
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(24, 0)}
	return s
}

// Each profile scores what it is built for, judged by the harness on what
// the SQL observer counted.
func TestScores(t *testing.T) {
	reftest.Scores(t, mcpdb.Profiles, mcpdb.Describe, spec)
}
