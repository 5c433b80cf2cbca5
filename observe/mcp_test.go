package observe_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// patient settles at once, but gives a failed read (a server process
// starting on a loaded machine) time to succeed.
var patient = observe.Settle{Interval: 5 * time.Millisecond, Within: 20 * time.Second}

// memorySession starts the SDK's memory server on file, as a target would
// be, and returns a session on it.
func memorySession(t *testing.T, bin, file string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "caller", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, "-memory", file)}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func createEntities(t *testing.T, cs *sdk.ClientSession, entities ...map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list := make([]any, len(entities))
	for i, e := range entities {
		list[i] = e
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_entities", Arguments: map[string]any{"entities": list}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
}

// The MCP read-back reads the knowledge graph the SDK's memory server
// keeps, through its search_nodes tool on a server process of the
// observer's own that reads the same file; the file observer reads the
// file itself. Declared with one Object, what both see is merged.
func TestMCPReadBackOnTheSDKMemoryServer(t *testing.T) {
	bin := memoryServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "memory.json")
	target := memorySession(t, bin, file)
	createEntities(t, target,
		map[string]any{"name": "ann " + m1, "entityType": "person", "observations": []any{"likes tea"}},
		map[string]any{"name": "bob", "entityType": "person", "observations": []any{"met " + m1}},
		map[string]any{"name": "cyd " + m2, "entityType": "person", "observations": []any{}})

	viaTool := observe.Spec{Name: "graph-tool", Object: "entities", Settle: patient, Source: observe.MCP{
		Tool: "search_nodes", Arguments: map[string]any{"query": "{{marker}}"}, Items: "entities", ID: "name",
		Command: []string{bin, "-memory", "{{state_dir}}/memory.json"},
	}}
	viaFile := observe.Spec{Name: "graph-file", Object: "entities", Settle: quick, Source: observe.File{
		Path: "{{state_dir}}/memory.json", ID: "name",
	}}
	tool, fileObs := open(t, viaTool, dir), open(t, viaFile, dir)
	assert.ElementsMatch(t, []string{"ann " + m1, "bob"}, ids(t, tool, m1), "the server selects by the marker in name or observations")
	assert.ElementsMatch(t, []string{"cyd " + m2}, ids(t, tool, m2))

	ledger := fakes.NewLedger()
	ctx := context.Background()
	require.NoError(t, tool.Observe(ctx, ledger, m1))
	require.NoError(t, fileObs.Observe(ctx, ledger, m1))
	require.Len(t, ledger.Effects(), 4, "each observer records what it saw")
	merged := observe.Merge(ledger.Effects())
	require.Len(t, merged, 2, "two entities, each seen by both")
	assert.Equal(t, "graph-tool, graph-file", merged[0].Detail[observe.DetailEvidence])

	// Without {{marker}} in the arguments, only the items holding it count.
	all := open(t, observe.Spec{Name: "graph", Settle: patient, Source: observe.MCP{
		Tool: "read_graph", Items: "entities", ID: "name", Command: []string{bin, "-memory", file},
	}}, dir)
	assert.ElementsMatch(t, []string{"cyd " + m2}, ids(t, all, m2))
}

func TestMCPReadBackErrors(t *testing.T) {
	bin := memoryServer(t)
	dir := t.TempDir()
	ctx := context.Background()
	w := observe.Where{}

	_, err := observe.Spec{Name: "g", Source: observe.MCP{Tool: "search_everything", Command: []string{bin}}}.Open(ctx, w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tool search_everything: the server does not list it (it has ")
	assert.Contains(t, err.Error(), "search_nodes")

	// A tool that answers an error: the reason is named.
	bad := open(t, observe.Spec{Name: "graph-tool", Settle: failing, Source: observe.MCP{
		Tool: "add_observations", Arguments: map[string]any{"observations": []any{map[string]any{"entityName": "nobody {{marker}}", "contents": []any{"x"}}}},
		Command: []string{bin, "-memory", filepath.Join(dir, "m.json")},
	}}, dir)
	err = bad.Observe(ctx, fakes.NewLedger(), m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observer graph-tool (mcp): tool add_observations answered an error")
	assert.Contains(t, err.Error(), "nobody "+m1)

	// A tool annotated as one that changes things is refused.
	srv := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "list_orders", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: false}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, nil
		})
	_, err = observe.Spec{Source: observe.MCP{Tool: "list_orders", Server: srv}}.Open(ctx, w)
	assert.ErrorContains(t, err, "annotated readOnlyHint: false")

	_, err = observe.Spec{Source: observe.MCP{Tool: "list_orders"}}.Open(ctx, w)
	assert.ErrorContains(t, err, "set command or url")
	assert.Error(t, observe.MCP{}.Validate())
	assert.Error(t, observe.MCP{Tool: "x", Command: []string{"a"}, URL: "http://127.0.0.1:1/mcp"}.Validate())
}

// A result in text content (no structuredContent) is read as JSON; items
// without an id are identified by their place.
func TestMCPReadBackTextResult(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "list_notes", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Filter string `json:"filter,omitempty"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"notes":[{"text":"a ` + m1 + `"},{"text":"b"},{"text":"c ` + m1 + `"}]}`}}}, nil, nil
		})
	o := open(t, observe.Spec{Name: "notes", Settle: quick, Source: observe.MCP{Tool: "list_notes", Items: "notes", Server: srv}}, "")
	assert.Equal(t, []string{"[0]", "[2]"}, ids(t, o, m1))
}

// Over streamable HTTP: the server's URL, a session of the observer's.
func TestMCPReadBackOverStreamableHTTP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "list_orders", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Search string `json:"search"`
		}) (*sdk.CallToolResult, struct {
			Orders []map[string]string `json:"orders"`
		}, error) {
			out := struct {
				Orders []map[string]string `json:"orders"`
			}{Orders: []map[string]string{}}
			for i, note := range []string{"a " + m1, "b " + m2, "c " + m1} {
				if strings.Contains(note, in.Search) {
					out.Orders = append(out.Orders, map[string]string{"id": fmt.Sprintf("ord_%d", i+1), "note": note})
				}
			}
			return nil, out, nil
		})
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(h.Close) // after the observer has ended its session
	o := open(t, observe.Spec{Name: "orders-tool", Settle: patient, Source: observe.MCP{
		Tool: "list_orders", Arguments: map[string]any{"search": "{{marker}}"}, Items: "orders", ID: "id", URL: h.URL,
	}}, "")
	assert.Equal(t, []string{"ord_1", "ord_3"}, ids(t, o, m1))
}

// A list the server selects by the marker has places of its own for each
// marker: the first item of one marker is not the first of another. Items
// are identified by their "id" when they carry one, else by their place
// in the marker's list, so two intents' orders are two effects, and a
// second order of one intent is a new one.
func TestMCPReadBackIdentitiesAcrossMarkers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		withID bool
		want   [][]string // per observation: m1, m2, m1 again after a second order
	}{
		{"items with an id", true, [][]string{{"ord_1"}, {"ord_2"}, {"ord_1", "ord_3"}}},
		{"items without one", false, [][]string{{m1 + "[0]"}, {m2 + "[0]"}, {m1 + "[0]", m1 + "[1]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			notes := []string{"a " + m1, "b " + m2}
			srv := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "1"}, nil)
			sdk.AddTool(srv, &sdk.Tool{Name: "list_orders", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
				func(_ context.Context, _ *sdk.CallToolRequest, in struct {
					Search string `json:"search"`
				}) (*sdk.CallToolResult, any, error) {
					mu.Lock()
					defer mu.Unlock()
					var out []map[string]string
					for i, note := range notes {
						if strings.Contains(note, in.Search) {
							item := map[string]string{"note": note}
							if tc.withID {
								item["id"] = fmt.Sprintf("ord_%d", i+1)
							}
							out = append(out, item)
						}
					}
					return nil, map[string]any{"orders": out}, nil
				})
			o := open(t, observe.Spec{Name: "orders-tool", Settle: quick, Source: observe.MCP{
				Tool: "list_orders", Arguments: map[string]any{"search": "{{marker}}"}, Items: "orders", Server: srv,
			}}, "")
			ledger := fakes.NewLedger()
			seen := func(marker string) []string {
				require.NoError(t, o.Observe(context.Background(), ledger, marker))
				var got []string
				for _, e := range ledger.ByMarker(marker) {
					got = append(got, e.ID)
				}
				return got
			}
			assert.Equal(t, tc.want[0], seen(m1))
			assert.Equal(t, tc.want[1], seen(m2), "another marker's first item is another effect")
			mu.Lock()
			notes = append(notes, "c "+m1)
			mu.Unlock()
			assert.Equal(t, tc.want[2], seen(m1), "a second order of the first marker is a new effect")
			assert.Len(t, ledger.Effects(), 3)
		})
	}
}
