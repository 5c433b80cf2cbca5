package config

import (
	"github.com/idemcheck/idemcheck/harness"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
)

// mcpSpec is the harness spec of an mcp target: a stdio server started
// from command (a process per session), or a streamable HTTP server at
// url, started with start when set.
func mcpSpec(t Target, starters []harness.FakeStarter) harness.Spec {
	cfg := mcptarget.Config{
		Name: t.Name, Command: t.Command, Env: t.Env, Dir: t.Dir, URL: t.URL,
		Key:    placement(t.KeyArgument, t.KeyMeta),
		Effect: t.Effect.JSON, Identity: t.Identity.JSON,
		Timeout: t.Timeout.Std(),
	}
	if d := dryRunPlacement(t.DryRunArgument); d != nil {
		cfg.DryRun = *d
	}
	for _, tool := range t.Tools {
		mt := mcptarget.Tool{
			Name: tool.Name, Mutating: tool.Mutating, Marker: tool.Marker,
			Arguments: tool.Arguments, Inputs: inputs(tool.Inputs),
			DryRun: dryRunPlacement(tool.DryRunArgument),
		}
		if tool.KeyArgument != nil || tool.KeyMeta != "" {
			p := placement(tool.KeyArgument, tool.KeyMeta)
			mt.Key = &p
		}
		if tool.Effect != nil {
			mt.Effect = tool.Effect.JSON
		}
		if tool.Identity != nil {
			mt.Identity = tool.Identity.JSON
		}
		cfg.Tools = append(cfg.Tools, mt)
	}
	var l *mcptarget.Launch
	if s := t.Start; s != nil {
		l = &mcptarget.Launch{Command: s.Command, Env: s.Env, Dir: s.Dir, ReadyPath: s.Ready.Path, ReadyTimeout: s.Ready.Timeout.Std()}
	}
	return mcptarget.Spec(cfg, l, starters...)
}

// placement says where the key goes: a _meta field, an argument, none
// (key_argument: ""), or the zero value: guessed from each schema.
func placement(arg *string, meta string) mcptarget.Placement {
	switch {
	case meta != "":
		return mcptarget.Placement{In: mcptarget.InMeta, Name: meta}
	case arg == nil:
		return mcptarget.Placement{}
	case *arg == "":
		return mcptarget.Placement{In: mcptarget.InNone}
	}
	return mcptarget.Placement{In: mcptarget.InArgument, Name: *arg}
}

func dryRunPlacement(arg *string) *mcptarget.Placement {
	if arg == nil {
		return nil
	}
	if *arg == "" {
		return &mcptarget.Placement{In: mcptarget.InNone}
	}
	return &mcptarget.Placement{In: mcptarget.InArgument, Name: *arg}
}
