package mcpdb_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

func command(t *testing.T, profile, dsn string) []string {
	t.Helper()
	return append(reftest.Command(t), "--profile", profile, "--db", dsn)
}

// session starts the server as an MCP host does, a process per session.
func session(t *testing.T, profile, dsn string) *sdk.ClientSession {
	t.Helper()
	argv := command(t, profile, dsn)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

type answer struct {
	OK     bool   `json:"ok"`
	Effect string `json:"effect"`
	Error  string `json:"error"`
	Status int    `json:"status"`
	Data   struct {
		ID int64 `json:"id"`
	} `json:"data"`
}

func create(t *testing.T, cs *sdk.ClientSession, args map[string]any) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_task", Arguments: args})
	require.NoError(t, err)
	raw, _ := json.Marshal(res.StructuredContent)
	var a answer
	require.NoError(t, json.Unmarshal(raw, &a))
	assert.Equal(t, !a.OK, res.IsError)
	return a
}

// counter counts the tasks of a marker through the table and through
// search_tasks on a server process of its own, merged: both see the same
// tasks.
func counter(t *testing.T, profile, dsn string) func(marker string) int {
	t.Helper()
	settle := observe.Settle{Interval: 5 * time.Millisecond, Within: 20 * time.Second}
	var obs []*observe.Observer
	for _, spec := range []observe.Spec{
		{Name: "tasks-db", Kind: "task", Object: "tasks", Settle: settle,
			Source: observe.SQL{DSN: dsn, Query: `SELECT id, title FROM tasks WHERE notes LIKE '%' || {{marker}} || '%'`}},
		{Name: "tasks-tool", Kind: "task", Object: "tasks", Settle: settle,
			Source: observe.MCP{Tool: "search_tasks", Arguments: map[string]any{"query": "{{marker}}"}, Items: "items", ID: "id", Command: command(t, profile, dsn)}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		o, err := spec.Open(ctx, observe.Where{})
		cancel()
		require.NoError(t, err)
		t.Cleanup(func() { o.Close() })
		obs = append(obs, o)
	}
	return func(marker string) int {
		ledger := fakes.NewLedger()
		for _, o := range obs {
			require.NoError(t, o.Observe(context.Background(), ledger, marker))
		}
		merged := observe.Merge(ledger.Effects())
		for _, e := range merged {
			assert.Equal(t, "tasks-db, tasks-tool", e.Detail[observe.DetailEvidence], "both saw task %s", e.ID)
		}
		return len(merged)
	}
}

func databases() map[string]func(*testing.T) string {
	return map[string]func(*testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "tasks.db") },
		"postgres": func(t *testing.T) string { return reftest.Postgres(t) },
	}
}

func task(marker, key string) map[string]any {
	return map[string]any{"title": "call ann", "notes": "about " + marker, "priority": 2, "idempotency_key": key}
}

// A retry on the same session, then on a new one (a new process), then
// four copies at once on four sessions: correct makes one task each time;
// session-keys makes one per session.
func TestRetriesAcrossSessions(t *testing.T) {
	for db, newDSN := range databases() {
		for _, tc := range []struct {
			profile         string
			retried, copies int
		}{{"correct", 1, 1}, {"session-keys", 2, 4}} {
			t.Run(db+"/"+tc.profile, func(t *testing.T) {
				dsn := newDSN(t)
				count := counter(t, tc.profile, dsn)
				first := session(t, tc.profile, dsn)
				m1 := "idem-00000000000000d1"
				assert.Equal(t, "created", create(t, first, task(m1, "k1")).Effect)
				assert.Equal(t, "noop", create(t, first, task(m1, "k1")).Effect, "the same session: replayed")
				assert.Equal(t, 1, count(m1))
				create(t, session(t, tc.profile, dsn), task(m1, "k1"))
				assert.Equal(t, tc.retried, count(m1), "after a retry on a new session")

				m2 := "idem-00000000000000d2"
				var wg sync.WaitGroup
				for range 4 {
					s := session(t, tc.profile, dsn)
					wg.Add(1)
					go func() {
						defer wg.Done()
						assert.True(t, create(t, s, task(m2, "k2")).OK)
					}()
				}
				wg.Wait()
				assert.Equal(t, tc.copies, count(m2), "four copies at once, on four sessions")
			})
		}
	}
}

func TestCorrectRefusals(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "tasks.db")
	count := counter(t, "correct", dsn)
	s := session(t, "correct", dsn)
	m := "idem-00000000000000e1"
	a := create(t, s, map[string]any{"title": "x", "notes": m, "priority": 1})
	assert.Equal(t, [2]any{"key_required", 400}, [2]any{a.Error, a.Status})
	dry := task(m, "k1")
	dry["dry_run"] = true
	assert.Equal(t, "would_create", create(t, s, dry).Effect)
	assert.Zero(t, count(m))
	require.Equal(t, "created", create(t, s, task(m, "k1")).Effect)
	other := task(m, "k1")
	other["priority"] = 5
	a = create(t, s, other)
	assert.Equal(t, [2]any{"key_mismatch", 422}, [2]any{a.Error, a.Status})
	assert.Equal(t, 1, count(m))
}
