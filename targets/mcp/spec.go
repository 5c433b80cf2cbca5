package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Launch is how a streamable HTTP server is started (process.Launch); its
// readiness is fetched under the URL's origin, and it runs as one
// instance.
type Launch = process.Launch

// Spec returns a harness.Spec that starts the fakes, then the target: a
// stdio server (cfg.Command, one process per session), a streamable HTTP
// server at cfg.URL (started with launch when not nil), or the in-process
// cfg.Server. cfg.Command, cfg.Env, cfg.Dir and cfg.URL may use
// {{state_dir}}, {{fakes.NAME.url}} and {{port}}.
func Spec(cfg Config, launch *Launch, fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  Kind,
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			return start(ctx, cfg, launch, env)
		},
		// A server idemcheck starts: a stdio process per session, or a
		// launched HTTP server.
		Isolated: len(cfg.Command) > 0 || launch != nil,
	}
}

// ServerSpec returns a harness.Spec for an in-process server, made by
// newServer once the fakes run (env has their URLs and the state
// directory): every session is a new connection to it over in-memory
// pipes, through the same relay as a stdio server's, so every fault but a
// crash applies.
func ServerSpec(cfg Config, newServer func(env *harness.Env) (*sdk.Server, error), fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  Kind,
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			srv, err := newServer(env)
			if err != nil {
				return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
			}
			cfg.Server = srv
			return New(ctx, cfg)
		},
		// Every start builds a server of its own.
		Isolated: true,
	}
}

func start(ctx context.Context, cfg Config, launch *Launch, env *harness.Env) (harness.Target, error) {
	if launch != nil && launch.Replicas > 1 {
		return nil, fmt.Errorf("target %s: an MCP server runs as one instance, not %d replicas", cfg.Name, launch.Replicas)
	}
	vars := env.Vars()
	prog := process.Program{Command: cfg.Command, Env: cfg.Env, Dir: cfg.Dir}
	if launch != nil || prog.Mentions("port") || process.Mentions("port", cfg.URL) {
		if err := process.AddPort(vars); err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
	}
	expand := func(s string) (string, error) { return harness.Expand(s, vars) }
	prog, err := prog.Expand(expand, env.RunID)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	cfg.Command, cfg.Env, cfg.Dir = prog.Command, prog.Env, prog.Dir
	if cfg.URL, err = expand(cfg.URL); err != nil {
		return nil, fmt.Errorf("target %s: url: %w", cfg.Name, err)
	}
	var proc *process.Process
	if launch != nil {
		spec, err := launch.Spec(cfg.Name, origin(cfg.URL), env.RunID, expand)
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
		if proc, err = process.Start(ctx, spec); err != nil {
			return nil, err
		}
	}
	t, err := newStarted(ctx, cfg, proc)
	if err != nil {
		if proc != nil {
			_ = proc.Stop(context.Background())
		}
		return nil, err
	}
	return t, nil
}

// origin is url up to its path: the readiness path is fetched under the
// server's origin, not under its MCP endpoint.
func origin(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			return url[:i+3+j]
		}
	}
	return url
}

// newStarted is New for a target whose HTTP server idemcheck started.
func newStarted(ctx context.Context, cfg Config, proc *process.Process) (*Target, error) {
	t, err := New(ctx, cfg)
	if err != nil || proc == nil {
		return t, err
	}
	t.proc = proc
	t.onStop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return proc.Stop(ctx)
	}
	return t, nil
}
