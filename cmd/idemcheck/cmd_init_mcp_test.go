package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/targets/mcp/mcpconfig"
	"github.com/idemcheck/idemcheck/targets/process"
)

// init --mcp on every reference server (stdio) writes a valid
// configuration with the annotations as comments and the guesses from the
// schemas, and on the correct server it runs as written and scores 3.
func TestInitMCPOnTheReferenceServers(t *testing.T) {
	exe := refexe.Path(t)
	for _, p := range mcpexample.Profiles {
		t.Run(p.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			code, out, errs := runCLI(t, ctx, "init", "--mcp", "--name", p.Name, "--", exe, examples.Subcommand, examples.MCPName, "--profile", p.Name)
			require.Equal(t, exitOK, code, errs)
			f, err := config.Parse("starter.yaml", []byte(out))
			require.NoError(t, err, out)
			tg, ok := f.Targets[0].(*mcpconfig.Section)
			require.True(t, ok, "an mcp target: %T", f.Targets[0])
			require.Len(t, tg.Tools, 2, out)
			assert.Contains(t, out, "- name: create_payment")
			assert.Contains(t, out, "marker: description")
			assert.Contains(t, out, "amount: {int: [100, 99999]}", "bounds from the schema")
			if p.Annotated() {
				assert.Contains(t, out, "# annotations: readOnlyHint: true")
				assert.Contains(t, out, "mutating: false   # from the annotations (readOnlyHint: true)")
			} else {
				assert.Contains(t, out, "# annotations: none (so it counts as mutating)")
			}
			if p.Name != "correct" {
				return
			}
			assert.Contains(t, out, "key_argument: idempotency_key   # from the input schema")
			assert.Contains(t, out, "dry_run_argument: dry_run")
			assert.NotContains(t, out, "TODO")
			dir := t.TempDir()
			path := filepath.Join(dir, "idemcheck.yaml")
			require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
			code, stdout, stderr := runCLI(t, ctx, "run", "-c", path, "--seed", "5", "--format", "json", "--quiet")
			require.Equal(t, exitOK, code, "%s\n%s", stderr, stdout)
			var res struct {
				Targets []struct {
					Score    int   `json:"score"`
					Findings []any `json:"findings"`
				} `json:"targets"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			require.Len(t, res.Targets, 1)
			assert.Equal(t, 3, res.Targets[0].Score)
			assert.Empty(t, res.Targets[0].Findings)
			requireNoTargetsLeft(t)
		})
	}
}

// init --mcp-url lists the tools of a running streamable HTTP server.
func TestInitMCPURL(t *testing.T) {
	exe := refexe.Path(t)
	port, err := process.FreePort()
	require.NoError(t, err)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	proc, err := process.Start(ctx, process.Spec{
		Command: []string{exe, examples.Subcommand, examples.MCPName, "--profile", "readonly-liar", "--listen", addr,
			"--payments", "http://127.0.0.1:9", "--state", t.TempDir()},
		Env:   []string{testTag},
		Ready: process.Ready{URL: "http://" + addr + "/healthz"},
	})
	require.NoError(t, err)
	defer func() { require.NoError(t, proc.Stop(context.Background())) }()
	code, out, errs := runCLI(t, ctx, "init", "--mcp-url", "http://"+addr+"/mcp")
	require.Equal(t, exitOK, code, errs)
	_, err = config.Parse("starter.yaml", []byte(out))
	require.NoError(t, err, out)
	assert.Contains(t, out, `url: "http://`+addr+`/mcp"`)
	assert.True(t, strings.Contains(out, "lookup_payment"))
}

func TestInitMCPBadUsage(t *testing.T) {
	ctx := context.Background()
	code, _, errs := runCLI(t, ctx, "init", "--mcp")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "no server")
	code, _, errs = runCLI(t, ctx, "init", "--mcp", "--", "/bin/true")
	assert.Equal(t, exitHarness, code, "a command that is no MCP server")
	assert.Contains(t, errs, "cannot list the server's tools")
}
