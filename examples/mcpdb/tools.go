package mcpdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Task is one row of the tasks table: the effect.
type Task struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Notes    string `json:"notes"`
	Priority int64  `json:"priority"`
}

var schema = []string{`CREATE TABLE IF NOT EXISTS tasks (
	id {{id}},
	title TEXT NOT NULL,
	notes TEXT NOT NULL,
	priority BIGINT NOT NULL,
	idempotency_key TEXT UNIQUE,
	fingerprint TEXT
)`}

// result is create_task's JSON result.
type result struct {
	OK       bool   `json:"ok"`
	Effect   string `json:"effect,omitempty"`
	Replayed bool   `json:"replayed,omitempty"`
	Data     *Task  `json:"data,omitempty"`
	Error    string `json:"error,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Status   int    `json:"status,omitempty"`
}

func toolResult(r result) *sdk.CallToolResult {
	b, _ := json.Marshal(r)
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           !r.OK,
	}
}

type createArgs struct {
	Title          string `json:"title"`
	Notes          string `json:"notes"`
	Priority       int64  `json:"priority"`
	IdempotencyKey string `json:"idempotency_key"`
	DryRun         bool   `json:"dry_run"`
}

const createSchema = `{"type":"object","properties":{` +
	`"title":{"type":"string","maxLength":200,"description":"what to do"},` +
	`"notes":{"type":"string","description":"free text kept with the task"},` +
	`"priority":{"type":"integer","minimum":1,"maximum":5},` +
	`"idempotency_key":{"type":"string","description":"the same on every retry of one request"},` +
	`"dry_run":{"type":"boolean","description":"say what would be created, create nothing"}},` +
	`"required":["title","priority"]}`

// server is one profile's tools over the tasks table.
type server struct {
	profile string
	db      *refdb.DB

	mu   sync.Mutex
	seen map[string]Task // session-keys: the keys this process has seen
}

func boolp(b bool) *bool { return &b }

// NewServer builds the MCP server of profile over db.
func NewServer(profile string, db *refdb.DB) (*sdk.Server, error) {
	if _, err := Describe(profile); err != nil {
		return nil, err
	}
	s := &server{profile: profile, db: db, seen: map[string]Task{}}
	srv := sdk.NewServer(&sdk.Implementation{Name: "tasks-" + profile, Version: "1.0.0"}, nil)
	srv.AddTool(&sdk.Tool{
		Name:        "create_task",
		Description: "Create a task. notes is free text kept with it.",
		InputSchema: json.RawMessage(createSchema),
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: boolp(false), OpenWorldHint: boolp(false)},
	}, s.create)
	srv.AddTool(&sdk.Tool{
		Name:        "search_tasks",
		Description: "List the tasks whose title or notes contain query.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolp(false)},
	}, s.search)
	return srv, nil
}

func fingerprint(a createArgs) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", a.Title, a.Notes, a.Priority)))
	return hex.EncodeToString(sum[:])
}

func (s *server) create(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a createArgs
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
		return toolResult(result{Error: "bad_arguments", Reason: err.Error(), Status: 400}), nil
	}
	if a.Title == "" || a.Priority < 1 || a.Priority > 5 {
		return toolResult(result{Error: "bad_arguments", Reason: "a title and a priority from 1 to 5 are required", Status: 400}), nil
	}
	t := Task{Title: a.Title, Notes: a.Notes, Priority: a.Priority}
	if a.DryRun {
		return toolResult(result{OK: true, Effect: "would_create", Data: &t, Status: 200}), nil
	}
	if a.IdempotencyKey == "" {
		return toolResult(result{Error: "key_required", Reason: "idempotency_key is required", Status: 400}), nil
	}
	// The task is made whether the client waits for it or not.
	ctx = context.WithoutCancel(ctx)
	var (
		r   result
		err error
	)
	if s.profile == "correct" {
		r, err = s.createKeyed(ctx, t, a.IdempotencyKey, fingerprint(a))
	} else {
		r, err = s.createRemembered(ctx, t, a.IdempotencyKey)
	}
	if err != nil {
		return toolResult(result{Error: "database_unavailable", Reason: err.Error(), Status: 503}), nil
	}
	return toolResult(r), nil
}

// createKeyed writes the task and its key in one statement against the
// key's unique index; a key already there replays its task.
func (s *server) createKeyed(ctx context.Context, t Task, key, fp string) (result, error) {
	err := s.db.QueryRowContext(ctx, `INSERT INTO tasks (title, notes, priority, idempotency_key, fingerprint)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
		t.Title, t.Notes, t.Priority, key, fp).Scan(&t.ID)
	if err == nil {
		return result{OK: true, Effect: "created", Data: &t, Status: 200}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return result{}, err
	}
	var old Task
	var oldFP string
	err = s.db.QueryRowContext(ctx, `SELECT id, title, notes, priority, fingerprint FROM tasks WHERE idempotency_key = $1`, key).
		Scan(&old.ID, &old.Title, &old.Notes, &old.Priority, &oldFP)
	if err != nil {
		return result{}, fmt.Errorf("the key conflicted, but no task holds it: %w", err)
	}
	if oldFP != fp {
		return result{Error: "key_mismatch", Reason: "the idempotency key was used with other arguments", Status: 422}, nil
	}
	return result{OK: true, Effect: "noop", Replayed: true, Data: &old, Status: 200}, nil
}

// createRemembered checks the key against what this process has seen,
// then inserts the task without it.
func (s *server) createRemembered(ctx context.Context, t Task, key string) (result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.seen[key]; ok {
		return result{OK: true, Effect: "noop", Replayed: true, Data: &old, Status: 200}, nil
	}
	err := s.db.QueryRowContext(ctx, `INSERT INTO tasks (title, notes, priority) VALUES ($1, $2, $3) RETURNING id`,
		t.Title, t.Notes, t.Priority).Scan(&t.ID)
	if err != nil {
		return result{}, err
	}
	s.seen[key] = t
	return result{OK: true, Effect: "created", Data: &t, Status: 200}, nil
}

func (s *server) search(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil || a.Query == "" {
		return toolResult(result{Error: "bad_arguments", Reason: "query is required", Status: 400}), nil
	}
	contains := "strpos" // PostgreSQL's; SQLite's is instr, with the same arguments
	if s.db.Driver == "sqlite" {
		contains = "instr"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, notes, priority FROM tasks
		WHERE `+contains+`(title, $1) > 0 OR `+contains+`(notes, $1) > 0 ORDER BY id`, a.Query)
	if err != nil {
		return toolResult(result{Error: "database_unavailable", Reason: err.Error(), Status: 503}), nil
	}
	defer rows.Close()
	items := []Task{}
	for rows.Next() {
		var t Task
		if err := rows.Scan(&t.ID, &t.Title, &t.Notes, &t.Priority); err != nil {
			return nil, err
		}
		items = append(items, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	b, _ := json.Marshal(struct {
		OK     bool   `json:"ok"`
		Effect string `json:"effect"`
		Items  []Task `json:"items"`
	}{true, "noop", items})
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}
