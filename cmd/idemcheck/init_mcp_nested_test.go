package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInitMCPProposesANestedMarker: the MCP Go SDK's example memory
// server (built from the module proxy at the SDK version of go.mod) takes
// only arrays of objects in its write tools; init --mcp proposes a
// free-text property of the array's objects for the marker.
func TestInitMCPProposesANestedMarker(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "memory")
	out, err := exec.Command("go", "build", "-o", bin,
		"github.com/modelcontextprotocol/go-sdk/examples/server/memory").CombinedOutput()
	if err != nil {
		t.Skipf("skipping: cannot build the SDK's memory server: %v: %s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, cfg, errs := runCLI(t, ctx, "init", "--mcp", "--name", "memory", "--", bin, "-memory", filepath.Join(t.TempDir(), "memory.json"))
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, cfg, "- name: create_entities")
	assert.Regexp(t, `(?m)^\s+marker: entities\.0\.observations\.0 `, cfg, "a free-text property of the array's objects")
	assert.Regexp(t, `(?m)^\s+marker: observations\.0\.contents\.0 `, cfg, "two levels down")
}
