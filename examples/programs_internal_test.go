package examples

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/reference/tools"
	"github.com/idemcheck/idemcheck/harness"
)

// TestEachToolStartsFromItsOwnProgram: given a directory of programs,
// each command-line tool and MCP server starts from the one named after
// it, the name its command line gives after Subcommand (which are the
// names the demo builds programs for); without one, from Exe.
func TestEachToolStartsFromItsOwnProgram(t *testing.T) {
	names := []string{OrdertoolName, MCPName, JSONStoreName, MCPDBName, CLIDBName, ShopName}
	assert.ElementsMatch(t, tools.Names(), names, "a program is built for each name the demo's command lines use")
	dir := t.TempDir()
	withTools := Programs{Exe: "/bin/reference", Tools: dir}
	alone := Programs{Exe: "/bin/reference"}
	for _, name := range names {
		assert.Equal(t, filepath.Join(dir, name), withTools.tool(name))
		assert.Equal(t, "/bin/reference", alone.tool(name))
	}
}

// TestDemoStartsEachToolFromTheProgramNamedAfterIt: the demo's targets
// given a directory of programs run, for each command-line tool, MCP
// server and the shop, the program named after it, asking it for that
// target: each program here is a script that records how it was called
// and fails.
func TestDemoStartsEachToolFromTheProgramNamedAfterIt(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	for _, name := range tools.Names() {
		script := "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> " + calls + "\nexit 3\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700))
	}
	var specs []harness.Spec
	for _, d := range DemoFrom(Programs{Exe: "/nonexistent/reference", Tools: dir}, SQLiteOrders) {
		if slices.Contains([]string{"ordertool-none", "mcp-correct", "jsonstore-locked", "mcpdb-correct", "clidb-correct", "correct", "bounded-keys", "correct-email"}, d.Spec.Name) {
			specs = append(specs, d.Spec)
		}
	}
	require.Len(t, specs, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, _ = harness.Verify(ctx, specs, harness.WithParallel(len(specs)))
	raw, err := os.ReadFile(calls)
	require.NoError(t, err, "no program was started")
	seen := map[string]bool{}
	var shops []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		prog, rest, _ := strings.Cut(line, " ")
		sub, rest, _ := strings.Cut(rest, " ")
		asked, args, _ := strings.Cut(rest, " ")
		assert.Equal(t, Subcommand, sub, line)
		assert.Equal(t, prog, asked, "program %s asked for target %s", prog, asked)
		seen[prog] = true
		if prog == ShopName {
			shops = append(shops, args)
		}
	}
	for _, name := range tools.Names() {
		assert.True(t, seen[name], "%s was started", name)
	}
	// Each of the three shop targets: the correct profile, the bounded
	// one and the one that also sends email.
	for _, want := range []func(string) bool{
		func(a string) bool {
			return strings.HasPrefix(a, "--profile correct ") && !strings.Contains(a, "--email")
		},
		func(a string) bool { return strings.HasPrefix(a, "--profile bounded-keys ") },
		func(a string) bool {
			return strings.HasPrefix(a, "--profile correct ") && strings.Contains(a, "--email")
		},
	} {
		assert.True(t, slices.ContainsFunc(shops, want), "a shop target started from the shop's program: %q", shops)
	}
}
