package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryServer builds the MCP Go SDK's example memory server from the
// module proxy, at the SDK version of go.mod, and returns its path; the
// test is skipped when it cannot be built, or in -short mode.
func memoryServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the SDK's memory server")
	}
	bin := filepath.Join(t.TempDir(), "memory")
	out, err := exec.Command("go", "build", "-o", bin,
		"github.com/modelcontextprotocol/go-sdk/examples/server/memory").CombinedOutput()
	if err != nil {
		t.Skipf("skipping: cannot build the SDK's memory server: %v: %s", err, out)
	}
	return bin
}

// TestMemoryServerJudgedThroughItsFile: the MCP Go SDK's example memory
// server (a knowledge graph saved whole to a JSON file), built from the
// module proxy at the SDK version of go.mod, configured as a new user
// would, its entities counted by a file observer in its state directory.
// The verdict follows its code: the file is loaded, modified and saved
// whole without a lock, so sessions writing at once lose one another's
// entities (concurrent.distinct) or leave a file that is no longer one
// JSON document, which the observer reports (exit 3, naming it); entities
// keyed by their name do not duplicate on a retry; its tools carry no
// annotations.
func TestMemoryServerJudgedThroughItsFile(t *testing.T) {
	t.Parallel()
	bin := memoryServer(t)
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: memory
    kind: mcp
    command: [%q, "-memory", "{{state_dir}}/memory.json"]
    observe:
      - name: graph
        kind: entity
        file: {path: "{{state_dir}}/memory.json", id: name}
    tools:
      - name: create_entities
        marker: entities.0.name
`, bin)), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, rep := runReport(t, ctx, cfg)
	tr := targetReport(t, rep)
	if msg, _ := tr["error"].(string); msg != "" {
		// Writers that overlap can leave two documents in the file, one
		// after the other: the observer cannot read it, and says so.
		assert.Equal(t, exitHarness, code)
		assert.Contains(t, msg, "observer graph (file)")
		assert.Contains(t, msg, "is not JSON")
		return
	}
	failing := map[string]bool{}
	fs, _ := tr["findings"].([]any)
	for _, f := range fs {
		failing[f.(map[string]any)["check"].(string)] = true
	}
	assert.False(t, failing["retry.sequential"], "an entity is keyed by its name: a retry adds nothing; findings %v", fs)
	assert.True(t, failing["mcp.annotations"], "no tool is annotated; findings %v", fs)
	assert.True(t, failing["concurrent.distinct"], "the file is rewritten whole without a lock; findings %v", fs)
	assert.Contains(t, fmt.Sprint(tr["observers"]), "graph (file) found an entity for")
}
