package mcp

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Launch says how to start the process that serves a streamable HTTP
// target, as for an HTTP target: Command, Env values and Dir may use
// {{port}}, {{state_dir}} and {{fakes.NAME.url}}; ReadyPath is polled
// until the server answers.
type Launch struct {
	Command      []string
	Env          map[string]string
	Dir          string
	ReadyPath    string
	ReadyTimeout time.Duration
}

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
	vars := env.Vars()
	if launch != nil || strings.Contains(cfg.URL, "{{port}}") || anyPort(cfg.Command) {
		port, err := process.FreePort()
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
		vars["port"] = strconv.Itoa(port)
	}
	expand := func(what string, xs []string) ([]string, error) {
		out := make([]string, 0, len(xs))
		for _, x := range xs {
			v, err := harness.Expand(x, vars)
			if err != nil {
				return nil, fmt.Errorf("target %s: %s: %w", cfg.Name, what, err)
			}
			out = append(out, v)
		}
		return out, nil
	}
	var err error
	if cfg.Command, err = expand("command", cfg.Command); err != nil {
		return nil, err
	}
	if cfg.URL, err = harness.Expand(cfg.URL, vars); err != nil {
		return nil, fmt.Errorf("target %s: url: %w", cfg.Name, err)
	}
	if cfg.Dir, err = harness.Expand(cfg.Dir, vars); err != nil {
		return nil, fmt.Errorf("target %s: dir: %w", cfg.Name, err)
	}
	envs := map[string]string{}
	for k, v := range cfg.Env {
		if envs[k], err = harness.Expand(v, vars); err != nil {
			return nil, fmt.Errorf("target %s: env %s: %w", cfg.Name, k, err)
		}
	}
	if env.RunID != "" {
		envs["IDEMCHECK_RUN_ID"] = env.RunID
	}
	cfg.Env = envs
	var proc *process.Process
	if launch != nil {
		spec := process.Spec{Name: cfg.Name, Ready: process.Ready{Timeout: launch.ReadyTimeout}}
		if spec.Command, err = expand("start command", launch.Command); err != nil {
			return nil, err
		}
		if spec.Dir, err = harness.Expand(launch.Dir, vars); err != nil {
			return nil, fmt.Errorf("target %s: start dir: %w", cfg.Name, err)
		}
		keys := make([]string, 0, len(launch.Env))
		for k := range launch.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, err := harness.Expand(launch.Env[k], vars)
			if err != nil {
				return nil, fmt.Errorf("target %s: start env %s: %w", cfg.Name, k, err)
			}
			spec.Env = append(spec.Env, k+"="+v)
		}
		spec.Env = append(spec.Env, "IDEMCHECK_RUN_ID="+env.RunID)
		base := cfg.URL
		if i := strings.Index(base, "://"); i >= 0 {
			if j := strings.IndexByte(base[i+3:], '/'); j >= 0 {
				base = base[:i+3+j]
			}
		}
		ready := launch.ReadyPath
		if ready == "" {
			ready = "/"
		}
		spec.Ready.URL = base + ready
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

func anyPort(xs []string) bool {
	for _, x := range xs {
		if strings.Contains(x, "{{port}}") {
			return true
		}
	}
	return false
}
