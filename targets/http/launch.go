package http

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Launch says how to start the process that serves an HTTP target. Command,
// Env values, Dir and the Config's BaseURL may use {{port}} (a free
// loopback port picked for this start), {{state_dir}}, {{fakes.NAME.url}}
// and, for a fake with an SMTP server, {{fakes.NAME.smtp}} (host:port).
type Launch struct {
	Command      []string
	Env          map[string]string
	Dir          string
	ReadyPath    string
	ReadyTimeout time.Duration
}

// Spec returns a harness.Spec that starts the fakes, then the target's
// process (when launch is not nil), then the adapter in front of it.
func Spec(cfg Config, launch *Launch, fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  "http",
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			return start(ctx, cfg, launch, env)
		},
	}
}

func start(ctx context.Context, cfg Config, launch *Launch, env *harness.Env) (harness.Target, error) {
	vars := map[string]string{"state_dir": env.StateDir}
	for name, f := range env.Fakes {
		vars["fakes."+name+".url"] = f.URL()
		if s, ok := f.(interface{ SMTPAddr() string }); ok {
			vars["fakes."+name+".smtp"] = s.SMTPAddr()
		}
	}
	if launch != nil || strings.Contains(cfg.BaseURL, "port") {
		port, err := process.FreePort()
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
		}
		vars["port"] = strconv.Itoa(port)
	}
	base, err := harness.Expand(cfg.BaseURL, vars)
	if err != nil {
		return nil, fmt.Errorf("target %s: url: %w", cfg.Name, err)
	}
	cfg.BaseURL = base
	var proc *process.Process
	if launch != nil {
		spec := process.Spec{Name: cfg.Name, Ready: process.Ready{Timeout: launch.ReadyTimeout}}
		for _, arg := range launch.Command {
			x, err := harness.Expand(arg, vars)
			if err != nil {
				return nil, fmt.Errorf("target %s: start command: %w", cfg.Name, err)
			}
			spec.Command = append(spec.Command, x)
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
		ready := launch.ReadyPath
		if ready == "" {
			ready = "/"
		}
		spec.Ready.URL = strings.TrimSuffix(base, "/") + ready
		proc, err = process.Start(ctx, spec)
		if err != nil {
			return nil, err
		}
	}
	t, err := New(cfg)
	if err != nil {
		if proc != nil {
			_ = proc.Stop(context.Background())
		}
		return nil, err
	}
	if proc != nil {
		t.proc = proc
		t.OnClose(func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return proc.Stop(ctx)
		})
	}
	return t, nil
}
