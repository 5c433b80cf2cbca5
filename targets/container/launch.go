package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/process"
)

// StateDir is where the run's state directory is mounted in the container,
// and what {{state_dir}} expands to in Launch.Cmd and Launch.Env.
const StateDir = "/state"

// Labels set on every container the adapter starts.
const (
	// RunLabel holds harness.Env.RunID, so a run's leftovers can be found.
	RunLabel = "idemcheck.run"
	// TargetLabel holds the target's name.
	TargetLabel = "idemcheck.target"
)

// Launch says how to run the container that serves an HTTP target. Cmd and
// Env values may use {{port}}, {{fakes.NAME.url}} and {{state_dir}}
// (StateDir); the Config's BaseURL may use {{port}}.
type Launch struct {
	// Image is the image to run, "name:tag" (see Image.Ref); it must exist
	// in the engine: nothing is pulled.
	Image string
	// Cmd is given to the image's entrypoint.
	Cmd []string
	Env map[string]string
	// Port is the port the server listens on, e.g. "8080/tcp", for an image
	// that cannot be told where to listen. The container uses the host's
	// network, so that port must be free on the host. Empty (the usual):
	// {{port}} is a free loopback port picked for this start, and Cmd or
	// Env must tell the server to listen on 127.0.0.1:{{port}}.
	Port string
	// ReadyPath is fetched until any HTTP response arrives (default "/").
	ReadyPath string
	// ReadyTimeout bounds the wait at start and restart (default
	// process.DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// User runs the server as "uid:gid". Empty: the harness's own uid and
	// gid, so that what the target writes in the state directory belongs to
	// the harness, which removes it. Set "0:0" for rootless Docker, where the
	// container's root is the harness's user.
	User string
}

// Spec returns a harness.Spec (kind "container") that starts the fakes,
// then the target's container, then the HTTP adapter and its fault proxy in
// front of it.
func Spec(cfg httptarget.Config, launch Launch, fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  Kind,
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			return start(ctx, cfg, launch, env)
		},
	}
}

func start(ctx context.Context, cfg httptarget.Config, launch Launch, env *harness.Env) (harness.Target, error) {
	if launch.Image == "" {
		return nil, fmt.Errorf("target %s: container image is empty; build one with container.Build and give its name:tag", cfg.Name)
	}
	port, err := pickPort(launch.Port)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	vars := map[string]string{"state_dir": StateDir, "port": strconv.Itoa(port)}
	for name, f := range env.Fakes {
		vars["fakes."+name+".url"] = f.URL()
	}
	base, err := harness.Expand(cfg.BaseURL, vars)
	if err != nil {
		return nil, fmt.Errorf("target %s: url: %w", cfg.Name, err)
	}
	cfg.BaseURL = base
	spec := runSpec{
		target:       cfg.Name,
		image:        launch.Image,
		runID:        env.RunID,
		stateDir:     env.StateDir,
		user:         launch.User,
		readyTimeout: launch.ReadyTimeout,
	}
	if spec.user == "" {
		spec.user = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
	}
	if spec.readyTimeout <= 0 {
		spec.readyTimeout = process.DefaultReadyTimeout
	}
	ready := launch.ReadyPath
	if ready == "" {
		ready = "/"
	}
	spec.readyURL = strings.TrimSuffix(base, "/") + ready
	for _, arg := range launch.Cmd {
		x, err := harness.Expand(arg, vars)
		if err != nil {
			return nil, fmt.Errorf("target %s: container cmd: %w", cfg.Name, err)
		}
		spec.cmd = append(spec.cmd, x)
	}
	keys := make([]string, 0, len(launch.Env))
	for k := range launch.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := harness.Expand(launch.Env[k], vars)
		if err != nil {
			return nil, fmt.Errorf("target %s: container env %s: %w", cfg.Name, k, err)
		}
		spec.env = append(spec.env, k+"="+v)
	}
	if env.RunID != "" {
		spec.env = append(spec.env, "IDEMCHECK_RUN_ID="+env.RunID)
	}

	pool, err := Connect(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	c, err := run(ctx, pool, spec)
	if err != nil {
		release(pool)
		return nil, err
	}
	ht, err := httptarget.New(cfg)
	if err != nil {
		err = fmt.Errorf("target %s: %w", cfg.Name, err)
		return nil, errors.Join(err, c.close())
	}
	info := ht.Info()
	info.Kind = Kind
	return &Target{http: ht, c: c, info: info}, nil
}

// pickPort returns the port Launch.Port names, or a free one.
func pickPort(p string) (int, error) {
	if p == "" {
		return process.FreePort()
	}
	num, proto, _ := strings.Cut(p, "/")
	if proto != "" && proto != "tcp" {
		return 0, fmt.Errorf("container port %q: expected a TCP port such as \"8080/tcp\"", p)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("container port %q: expected a port number 1-65535, optionally with \"/tcp\"", p)
	}
	return n, nil
}
