package cli

import (
	"context"
	"fmt"

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
	var opts []harness.Option
	if cfg.Concurrency > 0 {
		opts = append(opts, harness.WithTrialWorkers(cfg.Concurrency))
	}
	return harness.Spec{
		Options: opts,
		Name:    cfg.Name,
		Kind:    Kind,
		Fakes:   fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			return start(cfg, env)
		},
		// Every start has a state directory of its own.
		Isolated: true,
	}
}

func start(cfg Config, env *harness.Env) (harness.Target, error) {
	vars := env.Vars()
	prog := process.Program{Command: cfg.Command, Env: cfg.Env, Dir: cfg.Dir}
	if prog.Mentions("port") {
		if err := process.AddPort(vars); err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
	}
	prog, err := prog.Expand(func(s string) (string, error) { return harness.Expand(s, vars) }, env.RunID)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	cfg.Command, cfg.Env, cfg.Dir = prog.Command, prog.Env, prog.Dir
	return New(cfg)
}
