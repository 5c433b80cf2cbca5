package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Spec returns a harness.Spec that starts the fakes, then the adapter.
// cfg.Command, the values of cfg.Env and cfg.Dir may use {{state_dir}}
// (the run's fresh state directory), {{fakes.NAME.url}}, for a fake with
// an SMTP server {{fakes.NAME.smtp}} (host:port), and {{port}} (a free
// loopback port, for a tool that needs one); they are filled in when the
// target starts. Every invocation also gets IDEMCHECK_RUN_ID, so that
// leftovers can be found.
func Spec(cfg Config, fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  Kind,
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			return start(cfg, env)
		},
		// Every start has a state directory of its own.
		Isolated: true,
	}
}

func start(cfg Config, env *harness.Env) (harness.Target, error) {
	vars := env.Vars()
	if process.Mentions("port", append(append([]string{cfg.Dir}, cfg.Command...), envValues(cfg.Env)...)...) {
		port, err := process.FreePort()
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
		vars["port"] = strconv.Itoa(port)
	}
	expand := func(s string) (string, error) { return harness.Expand(s, vars) }
	var err error
	if cfg.Command, err = process.ExpandArgs("command", cfg.Command, expand); err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	if cfg.Dir, err = expand(cfg.Dir); err != nil {
		return nil, fmt.Errorf("target %s: dir: %w", cfg.Name, err)
	}
	if cfg.Env, err = process.ExpandMap("env", cfg.Env, expand); err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	if env.RunID != "" {
		cfg.Env[process.RunIDVar] = env.RunID
	}
	return New(cfg)
}

func envValues(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, v := range env {
		out = append(out, v)
	}
	return out
}
