package examples

import (
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
)

// MCPName is the reference MCP servers' name under Subcommand:
// idemcheck __example mcp --profile NAME ….
const MCPName = reference.MCP

// MCPSpec is the harness spec of one reference MCP server, started from
// exe: over stdio (a process per session), or over streamable HTTP on a
// free port.
func MCPSpec(exe string, p mcpexample.Profile) harness.Spec {
	cmd := []string{exe, Subcommand, MCPName, "--profile", p.Name, "--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}"}
	fakes := []harness.FakeStarter{PaymentsFake}
	if p.Email() {
		cmd = append(cmd, "--email", "{{fakes.email.url}}")
		fakes = append(fakes, EmailFake)
	}
	cfg := mcptarget.Config{Name: "mcp-" + p.Name}
	if !p.Annotated() {
		// Without annotations every tool counts as mutating; the lookup
		// is not, and the configuration says so (the report notes it).
		f := false
		cfg.Tools = []mcptarget.Tool{{Name: "create_payment"}, {Name: "lookup_payment", Mutating: &f}}
	}
	if !p.HTTP {
		cfg.Command = cmd
		return mcptarget.Spec(cfg, nil, fakes...)
	}
	cfg.URL = "http://127.0.0.1:{{port}}/mcp"
	launch := &mcptarget.Launch{Command: append(cmd, "--listen", "127.0.0.1:{{port}}"), ReadyPath: "/healthz"}
	return mcptarget.Spec(cfg, launch, fakes...)
}

// MCPDemo returns the reference MCP servers as demo targets.
func MCPDemo(exe string) []DemoTarget {
	var out []DemoTarget
	for _, p := range mcpexample.Profiles {
		out = append(out, DemoTarget{Spec: MCPSpec(exe, p), Built: p.Score, Flaw: p.Flaw})
	}
	return out
}
