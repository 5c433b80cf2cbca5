package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoReferenceBuiltFromTheSource: from a checkout with the go
// command, the demo starts its reference targets from the small program,
// and its command-line tools and MCP servers from a smaller one still,
// both built into the user's cache directory and linked again only when
// the source changed; without the go command, from this binary, saying
// why.
func TestDemoReferenceBuiltFromTheSource(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to build the reference program")
	}
	saved := referenceProgram
	referenceProgram = nil
	t.Cleanup(func() { referenceProgram = saved })
	// The go command's own cache stays where it is (it defaults to one
	// under the user's cache directory, which the test moves).
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	progs, note, cleanup, err := demoReference(ctx)
	require.NoError(t, err)
	cleanup()
	for _, exe := range []string{progs.Exe, progs.Tools} {
		assert.True(t, strings.HasPrefix(exe, filepath.Join(cache, "idemcheck")), "kept in the cache: %s", exe)
		out, err := exec.Command(exe, "__example", "ordertool", "--help").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "create-order", "%s runs the reference command-line tool", exe)
	}
	assert.NotEqual(t, progs.Exe, progs.Tools)
	assert.Contains(t, note, "reference targets started from examples/reference/cmd/reference, the command-line tools and MCP servers from examples/reference/cmd/tools")
	out, err := exec.Command(progs.Exe, "__example", "shop", "--help").CombinedOutput()
	assert.NoError(t, err, "%s", out)
	out, err = exec.Command(progs.Tools, "__example", "shop", "--help").CombinedOutput()
	assert.Error(t, err, "the smaller program carries only the tools and MCP servers")
	assert.Contains(t, string(out), `unknown reference target "shop"`)

	again, _, cleanup, err := demoReference(ctx)
	require.NoError(t, err)
	cleanup()
	assert.Equal(t, progs, again, "the same programs, from the cache")

	t.Setenv("PATH", "")
	self, note, cleanup, err := demoReference(ctx)
	require.NoError(t, err)
	cleanup()
	me, _ := os.Executable()
	assert.Equal(t, me, self.Exe)
	assert.Empty(t, self.Tools, "this binary starts every reference target")
	assert.Contains(t, note, "started from this binary (no go command")
}
