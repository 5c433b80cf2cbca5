package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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
	if usesPort(cfg) {
		port, err := process.FreePort()
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
		vars["port"] = strconv.Itoa(port)
	}
	command := make([]string, 0, len(cfg.Command))
	for _, arg := range cfg.Command {
		x, err := harness.Expand(arg, vars)
		if err != nil {
			return nil, fmt.Errorf("target %s: command: %w", cfg.Name, err)
		}
		command = append(command, x)
	}
	dir, err := harness.Expand(cfg.Dir, vars)
	if err != nil {
		return nil, fmt.Errorf("target %s: dir: %w", cfg.Name, err)
	}
	envs := make(map[string]string, len(cfg.Env)+1)
	for k, v := range cfg.Env {
		x, err := harness.Expand(v, vars)
		if err != nil {
			return nil, fmt.Errorf("target %s: env %s: %w", cfg.Name, k, err)
		}
		envs[k] = x
	}
	if env.RunID != "" {
		envs["IDEMCHECK_RUN_ID"] = env.RunID
	}
	cfg.Command, cfg.Dir, cfg.Env = command, dir, envs
	return New(cfg)
}

func usesPort(cfg Config) bool {
	has := func(s string) bool { return strings.Contains(s, "port") && strings.Contains(s, "{{") }
	for _, a := range cfg.Command {
		if has(a) {
			return true
		}
	}
	for _, v := range cfg.Env {
		if has(v) {
			return true
		}
	}
	return has(cfg.Dir)
}
