package examples

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/examples/reference/tools"
)

// TestEachToolStartsFromItsOwnProgram: given a directory of programs,
// each command-line tool and MCP server starts from the one named after
// it, the name its command line gives after Subcommand (which are the
// names the demo builds programs for); without one, from Exe.
func TestEachToolStartsFromItsOwnProgram(t *testing.T) {
	names := []string{OrdertoolName, MCPName, JSONStoreName, MCPDBName, CLIDBName}
	assert.ElementsMatch(t, tools.Names(), names, "a program is built for each name the demo's command lines use")
	dir := t.TempDir()
	withTools := Programs{Exe: "/bin/reference", Tools: dir}
	alone := Programs{Exe: "/bin/reference"}
	for _, name := range names {
		assert.Equal(t, filepath.Join(dir, name), withTools.tool(name))
		assert.Equal(t, "/bin/reference", alone.tool(name))
	}
}
