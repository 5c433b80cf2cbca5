package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/mcp"
)

// buildMemoryServer builds the official Go SDK's example memory server (a
// knowledge graph kept in a JSON file) from the SDK version in go.mod. It
// skips the test when the toolchain cannot build it.
func buildMemoryServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memory")
	out, err := exec.Command("go", "build", "-o", bin,
		"github.com/modelcontextprotocol/go-sdk/examples/server/memory").CombinedOutput()
	if err != nil {
		t.Skipf("skipping: cannot build the SDK's memory server: %v: %s", err, out)
	}
	return bin
}

// The memory server's real tools: testdata/memory-tools.json is what its
// tools/list says, and the adapter plans its write tools, whose only
// arguments are arrays of objects, with the marker one level down or
// more; the calls reach the server and the marker lands in its file.
func TestMemoryServerSchemasAreTheLiveOnes(t *testing.T) {
	t.Parallel()
	bin := buildMemoryServer(t)
	file := filepath.Join(t.TempDir(), "memory.json")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg := mcp.Config{Name: "memory", Command: []string{bin, "-memory", file}, Timeout: 10 * time.Second}

	live, err := mcp.List(ctx, cfg)
	require.NoError(t, err)
	raw, err := os.ReadFile("testdata/memory-tools.json")
	require.NoError(t, err)
	var kept []map[string]any
	require.NoError(t, json.Unmarshal(raw, &kept))
	require.Len(t, live, len(kept))
	for i, tl := range live {
		got, _ := json.Marshal(tl.InputSchema)
		want, _ := json.Marshal(kept[i]["inputSchema"])
		assert.Equal(t, kept[i]["name"], tl.Name)
		assert.JSONEq(t, string(want), string(got), "%s: testdata/memory-tools.json is the server's own tools/list", tl.Name)
	}

	no := false
	cfg.Tools = []mcp.Tool{
		{Name: "create_entities"},
		{Name: "add_observations", Marker: "observations[0].contents[0]", Arguments: map[string]any{"observations[0].entityName": "ann"}},
		{Name: "create_relations", Arguments: map[string]any{"relations": []any{map[string]any{"from": "ann", "to": "bob", "relationType": "knows since {{marker}}"}}}},
		{Name: "search_nodes", Mutating: &no},
	}
	target, err := mcp.New(ctx, cfg)
	require.NoError(t, err, "no tool is refused for want of a top-level string")
	defer target.Close()
	create, ok := target.Info().Operation("create_entities")
	require.True(t, ok)
	assert.Contains(t, create.Inputs, "entities.0.name", "the rest of the element is generated")
	assert.NotContains(t, create.Inputs, "entities.0.observations.0", "the marker goes there")

	call := func(op, marker string, inputs map[string]string) harness.Reply {
		rep := target.Call(ctx, harness.Call{ID: op + "-" + marker, Operation: op, Marker: marker, Inputs: inputs})
		require.Equal(t, harness.OK, rep.Outcome, "%s: %+v", op, rep)
		return rep
	}
	call("create_entities", "idem-00000000000000c1", map[string]string{"entities.0.name": "ann", "entities.0.entityType": "person"})
	call("create_entities", "idem-00000000000000c2", map[string]string{"entities.0.name": "bob", "entities.0.entityType": "person"})
	call("add_observations", "idem-00000000000000c3", map[string]string{})
	call("create_relations", "idem-00000000000000c4", map[string]string{})

	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	var items []map[string]any
	require.NoError(t, json.Unmarshal(saved, &items))
	assert.Equal(t, []map[string]any{
		{"type": "entity", "name": "ann", "entityType": "person", "observations": []any{"idem-00000000000000c1", "idem-00000000000000c3"}},
		{"type": "entity", "name": "bob", "entityType": "person", "observations": []any{"idem-00000000000000c2"}},
		{"type": "relation", "from": "ann", "to": "bob", "relationType": "knows since idem-00000000000000c4"},
	}, items)
}
