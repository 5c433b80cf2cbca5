package observe

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/targets/process"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP reads back through a read-only tool of an MCP server (the target's
// own, on a session of the observer's), through the official Go SDK
// client: the items at a JSON path of the tool's result are the objects,
// as a read-back of an HTTP API lists them.
//
//	{tool: search_nodes, arguments: {query: "{{marker}}"}, items: entities, id: name,
//	 command: ["./memory", "-memory", "{{state_dir}}/memory.json"]}
//
// The server is reached over stdio by Command (a process of the
// observer's own, which reads the same state as the target's: a file, a
// database), over streamable HTTP at URL, or, with neither, through the
// started target when it is an MCPConnector.
type MCP struct {
	// Tool is the read-only tool to call (search_nodes, list_orders). A
	// tool annotated as not read-only is refused.
	Tool string `json:"tool"`
	// Arguments are the tool's arguments; {{marker}} may be anywhere in
	// a string, at any depth. With it, the server is trusted to select the
	// intent's items; without it, only the items whose JSON holds the
	// marker count.
	Arguments map[string]any `json:"arguments,omitempty"`
	// Items is the JSON path of the list in the result (its
	// structuredContent, else its first text content read as JSON); ""
	// when the result is the list.
	Items string `json:"items,omitempty"`
	// ID is the JSON path of an item's identity; "" takes an item's "id"
	// when it has one, else its place: in the whole list when the
	// arguments do not hold the marker, else in the list the server chose
	// for the marker, written after it ("idem-…[0]"), since each marker's
	// list has its own first item.
	ID string `json:"id,omitempty"`
	// Command, Env and Dir start a stdio server; they may use
	// {{state_dir}}, {{fakes.NAME.url}} and {{env.NAME}}.
	Command []string          `json:"command,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Dir     string            `json:"dir,omitempty"`
	// URL is a streamable HTTP endpoint (http://127.0.0.1:8080/mcp).
	URL string `json:"url,omitempty"`
	// Server is an in-process server (Go only).
	Server *sdk.Server `json:"-"`
}

// MCPConnector is a started target that opens an MCP session of its own
// for an observer, on the server under test: an MCP observer with neither
// Command nor URL reads back through it.
type MCPConnector interface {
	ConnectMCP(ctx context.Context) (*sdk.ClientSession, error)
}

var _ Source = MCP{}

// Type implements Source.
func (MCP) Type() string { return "mcp" }

// EffectKind implements EffectKind: an item.
func (MCP) EffectKind() string { return "item" }

// Validate implements Validator.
func (m MCP) Validate() error {
	if m.Tool == "" {
		return errors.New("tool: required: a read-only tool of the server that lists what the intents made, e.g. search_nodes")
	}
	if len(m.Command) > 0 && m.URL != "" {
		return errors.New("set command (stdio) or url (streamable HTTP), not both")
	}
	return nil
}

// Open implements Source: it starts a session, checks that the tool is
// listed, and keeps the session for every read.
func (m MCP) Open(ctx context.Context, w Where) (Finder, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var err error
	for i, a := range m.Command {
		if m.Command[i], err = w.Expand(a); err != nil {
			return nil, fmt.Errorf("command: %w", err)
		}
	}
	env := map[string]string{}
	for k, v := range m.Env {
		if env[k], err = w.Expand(v); err != nil {
			return nil, fmt.Errorf("env.%s: %w", k, err)
		}
	}
	m.Env = env
	if m.Dir, err = w.Expand(m.Dir); err != nil {
		return nil, fmt.Errorf("dir: %w", err)
	}
	if m.URL, err = w.Expand(m.URL); err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	args, err := mapStrings(m.Arguments, w.Expand)
	if err != nil {
		return nil, fmt.Errorf("arguments.%w", err)
	}
	m.Arguments = args.(map[string]any)
	f := &mcpFinder{m: m, target: w.Target}
	if err := f.connect(ctx); err != nil {
		return nil, err
	}
	if err := f.checkTool(ctx); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

type mcpFinder struct {
	m      MCP
	target any

	mu sync.Mutex
	cs *sdk.ClientSession
}

// connect opens the session.
func (f *mcpFinder) connect(ctx context.Context) error {
	client := sdk.NewClient(&sdk.Implementation{Name: "idemcheck-observer", Version: "1"}, nil)
	var tr sdk.Transport
	switch {
	case len(f.m.Command) > 0:
		cmd := exec.Command(f.m.Command[0], f.m.Command[1:]...)
		// The read-back server is the target's own code: it gets what a
		// target gets (process.BaseEnv), not idemcheck's environment.
		cmd.Env = process.OwnBaseEnv()
		keys := make([]string, 0, len(f.m.Env))
		for k := range f.m.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cmd.Env = append(cmd.Env, k+"="+f.m.Env[k])
		}
		cmd.Dir = f.m.Dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.WaitDelay = time.Second
		tr = &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	case f.m.URL != "":
		tr = &sdk.StreamableClientTransport{Endpoint: f.m.URL, DisableStandaloneSSE: true}
	case f.m.Server != nil:
		ct, st := sdk.NewInMemoryTransports()
		if _, err := f.m.Server.Connect(ctx, st, nil); err != nil {
			return fmt.Errorf("in-process server: %w", err)
		}
		tr = ct
	default:
		c, ok := f.target.(MCPConnector)
		if !ok {
			return errors.New("set command or url: the server to read back through (the target cannot open a session for an observer)")
		}
		cs, err := c.ConnectMCP(ctx)
		if err != nil {
			return fmt.Errorf("a session on the target: %w", err)
		}
		f.cs = cs
		return nil
	}
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return fmt.Errorf("the server did not complete the MCP handshake: %w", err)
	}
	f.cs = cs
	return nil
}

// checkTool refuses a tool the server does not list, or annotates as
// one that changes things.
func (f *mcpFinder) checkTool(ctx context.Context) error {
	var names []string
	for t, err := range f.cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if t.Name != f.m.Tool {
			names = append(names, t.Name)
			continue
		}
		if a := t.Annotations; a != nil && !a.ReadOnlyHint {
			return fmt.Errorf("tool %s is annotated readOnlyHint: false: an observer only calls tools that change nothing", t.Name)
		}
		return nil
	}
	return fmt.Errorf("tool %s: the server does not list it (it has %s)", f.m.Tool, strings.Join(names, ", "))
}

// Close ends the session (and a stdio server's process).
func (f *mcpFinder) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cs == nil {
		return nil
	}
	err := f.cs.Close()
	f.cs = nil
	return err
}

// Find implements Finder: one tools/call; a session that died is opened
// again for the next read.
func (f *mcpFinder) Find(ctx context.Context, marker string) (Found, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cs == nil {
		if err := f.connect(ctx); err != nil {
			return Found{}, err
		}
	}
	args, _ := withMarker(f.m.Arguments, marker).(map[string]any)
	res, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: f.m.Tool, Arguments: args})
	if err != nil {
		if errors.Is(err, sdk.ErrConnectionClosed) {
			_ = f.cs.Close()
			f.cs = nil
		}
		return Found{}, fmt.Errorf("tool %s: %w", f.m.Tool, err)
	}
	doc, err := resultJSON(res)
	if err != nil {
		return Found{}, fmt.Errorf("tool %s: %w", f.m.Tool, err)
	}
	if res.IsError {
		raw, _ := json.Marshal(doc)
		return Found{}, fmt.Errorf("tool %s answered an error: %s", f.m.Tool, head(raw))
	}
	list, ok := Lookup(doc, f.m.Items)
	if !ok {
		raw, _ := json.Marshal(doc)
		return Found{}, fmt.Errorf("tool %s: the result has no %q: %s", f.m.Tool, f.m.Items, head(raw))
	}
	arr, ok := list.([]any)
	if !ok && list != nil {
		raw, _ := json.Marshal(doc)
		return Found{}, fmt.Errorf("tool %s: %q is not a list: %s", f.m.Tool, f.m.Items, head(raw))
	}
	filter := !mentionsMarker(f.m.Arguments)
	var out []Row
	for i, it := range arr {
		raw, _ := json.Marshal(it)
		if filter && !bytes.Contains(raw, []byte(marker)) {
			continue
		}
		var id string
		switch v, ok := identityAt(it, cmp.Or(f.m.ID, "id")); {
		case ok:
			id = v
		case f.m.ID != "":
			return Found{}, fmt.Errorf("tool %s: item %d has no %q: %s", f.m.Tool, i, f.m.ID, head(raw))
		case filter:
			id = fmt.Sprintf("[%d]", i) // a place in the whole list
		default:
			id = fmt.Sprintf("%s[%d]", marker, i)
		}
		out = append(out, Row{ID: id})
	}
	return Found{Rows: out}, nil
}

// resultJSON is a tool result's structuredContent, else its first text
// content read as JSON (an error result's text may be plain).
func resultJSON(res *sdk.CallToolResult) (any, error) {
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		return decodeJSON(raw)
	}
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			doc, err := decodeJSON([]byte(t.Text))
			if err != nil {
				if res.IsError {
					return t.Text, nil
				}
				return nil, fmt.Errorf("the result is not JSON: %s", head([]byte(t.Text)))
			}
			return doc, nil
		}
	}
	if res.IsError {
		return "(no text)", nil
	}
	return nil, errors.New("the result has neither structuredContent nor text content")
}

// withMarker copies v with {{marker}} replaced by marker in every string,
// at any depth.
func withMarker(v any, marker string) any {
	out, _ := mapStrings(v, func(s string) (string, error) { return strings.ReplaceAll(s, "{{marker}}", marker), nil })
	return out
}

// mapStrings copies a decoded JSON value with fn applied to every string,
// at any depth; nil is an empty object.
func mapStrings(v any, fn func(string) (string, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return fn(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			m, err := mapStrings(e, fn)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = m
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			m, err := mapStrings(e, fn)
			if err != nil {
				return nil, fmt.Errorf("%d: %w", i, err)
			}
			out[i] = m
		}
		return out, nil
	case nil:
		return map[string]any{}, nil
	}
	return v, nil
}

// mentionsMarker reports whether {{marker}} is in a string of v, at any
// depth.
func mentionsMarker(v any) bool {
	found := false
	_, _ = mapStrings(v, func(s string) (string, error) {
		found = found || strings.Contains(s, "{{marker}}")
		return s, nil
	})
	return found
}
