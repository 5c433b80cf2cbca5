package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ory/dockertest/v3"

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
	// OwnerLabel holds the identity of the idemcheck process that started
	// the container (process.OwnerID), so that what a killed idemcheck
	// left can be told from what a running one uses (RemoveOrphans).
	OwnerLabel = "idemcheck.owner"
)

// Launch says how to run the container that serves an HTTP target. Cmd and
// Env values may use {{port}}, {{fakes.NAME.url}}, {{fakes.NAME.smtp}} and
// {{state_dir}} (StateDir); the Config's BaseURL may use {{port}}.
type Launch struct {
	// Image is the image to run, "name:tag" (see Image.Ref); it must exist
	// in the engine: nothing is pulled.
	Image string
	// Build, if set, is built (with Build) before the first start of the
	// Spec, once however many times the target is started (every generated
	// trial starts it afresh), and run in place of Image.
	Build *Image
	// Cmd is given to the image's entrypoint.
	Cmd []string
	Env map[string]string
	// Port is the port the server listens on, e.g. "8080/tcp", for an image
	// that cannot be told where to listen. The container uses the host's
	// network, so that port must be free on the host. Empty (the usual):
	// {{port}} is a free loopback port picked for this start, and Cmd or
	// Env must tell the server to listen on 127.0.0.1:{{port}}.
	Port string
	// ReadyPath is fetched until it answers 2xx (default "/").
	ReadyPath string
	// ReadyTimeout bounds the wait at start and restart (default
	// process.DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// User runs the server as "uid:gid". Empty: the harness's own uid and
	// gid, so that what the target writes in the state directory belongs to
	// the harness, which removes it. Set "0:0" for rootless Docker, where the
	// container's root is the harness's user.
	User string
	// Replicas is how many containers serve the target (0 or 1 for one),
	// as an http target's replicas (see targets/http.Launch): each on a
	// {{port}} of its own, {{replica}} and IDEMCHECK_REPLICA set to its
	// number from 0, all with the same state directory and fakes.
	// Sequential calls go to each in turn, a burst's copies are split
	// among them; a crash kills and restarts them all.
	Replicas int

	// imageID, when set, is the image the containers run (Build's, by
	// its id); Image then only names it in messages.
	imageID string
}

// Spec returns a harness.Spec (kind "container") that starts the fakes,
// then the target's container, then the HTTP adapter and its fault proxy in
// front of it.
//
// Docker is only reached when the target starts, so that an engine that is
// not there is this target's error, not the caller's.
func Spec(cfg httptarget.Config, launch Launch, fakes ...harness.FakeStarter) harness.Spec {
	var img *imageBuild
	if launch.Build != nil {
		img = &imageBuild{img: *launch.Build}
		launch.Image = launch.Build.Ref()
	}
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  Kind,
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			launch := launch
			if img != nil {
				id, err := img.ensure(ctx)
				if err != nil {
					return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
				}
				launch.imageID = id
			}
			return start(ctx, cfg, launch, env)
		},
		// Every start runs a container of its own.
		Isolated: true,
	}
}

// imageBuild builds a Spec's image at most once: Build, although it keeps
// an image built from the same binary, reads and hashes the binary each
// time.
type imageBuild struct {
	img Image

	mu sync.Mutex
	id string // the image built, once it is
}

// ensure builds the image unless it was built already, and returns its
// id: every start of the Spec runs that image, though another build of
// the same name on the engine (another project's target of that name,
// from another binary) moves the name in the meantime. A failed build is
// tried again at the next start.
func (b *imageBuild) ensure(ctx context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.id != "" {
		return b.id, nil
	}
	pool, err := Connect(ctx, "")
	if err != nil {
		return "", err
	}
	defer release(pool)
	id, err := build(ctx, pool, b.img)
	if err != nil {
		return "", err
	}
	b.id = id
	return id, nil
}

func start(ctx context.Context, cfg httptarget.Config, launch Launch, env *harness.Env) (harness.Target, error) {
	if launch.Image == "" {
		return nil, fmt.Errorf("target %s: container image is empty; build one with container.Build and give its name:tag", cfg.Name)
	}
	n := max(1, launch.Replicas)
	if n > 1 && launch.Port != "" {
		return nil, fmt.Errorf("target %s: %d replicas cannot all listen on port %s of the host's network: tell each container its port with {{port}} in Cmd or Env", cfg.Name, n, launch.Port)
	}
	pool, err := Connect(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	var cs []*instance
	closeAll := func(err error) error {
		for _, c := range cs {
			err = errors.Join(err, c.close())
		}
		release(pool)
		return err
	}
	urlTmpl := cfg.BaseURL
	for i := range n {
		base, c, err := startOne(ctx, pool, cfg.Name, urlTmpl, launch, env, i, n)
		if err != nil {
			return nil, closeAll(err)
		}
		cs = append(cs, c)
		if i == 0 {
			cfg.BaseURL = base
		} else {
			cfg.ReplicaURLs = append(cfg.ReplicaURLs, base)
		}
	}
	ht, err := httptarget.New(cfg)
	if err != nil {
		return nil, closeAll(fmt.Errorf("target %s: %w", cfg.Name, err))
	}
	info := ht.Info()
	info.Kind = Kind
	return &Target{http: ht, cs: cs, info: info}, nil
}

// startOne runs container i of n: the target's URL, Cmd and Env expanded
// with a port of its own, created, started and ready.
func startOne(ctx context.Context, pool *dockertest.Pool, name, urlTmpl string, launch Launch, env *harness.Env, i, n int) (string, *instance, error) {
	port, err := pickPort(launch.Port)
	if err != nil {
		return "", nil, fmt.Errorf("target %s: %w", name, err)
	}
	vars := env.Vars()
	vars["state_dir"], vars["port"], vars["replica"] = StateDir, strconv.Itoa(port), strconv.Itoa(i)
	base, err := harness.Expand(urlTmpl, vars)
	if err != nil {
		return "", nil, fmt.Errorf("target %s: url: %w", name, err)
	}
	spec := runSpec{
		target:       name,
		image:        launch.Image,
		imageID:      launch.imageID,
		runID:        env.RunID,
		stateDir:     env.StateDir,
		user:         launch.User,
		readyTimeout: launch.ReadyTimeout,
	}
	if n > 1 {
		spec.target = fmt.Sprintf("%s#%d", name, i)
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
	expand := func(s string) (string, error) { return harness.Expand(s, vars) }
	if spec.cmd, err = process.ExpandArgs("container cmd", launch.Cmd, expand); err != nil {
		return "", nil, fmt.Errorf("target %s: %w", name, err)
	}
	envs, err := process.ExpandMap("container env", launch.Env, expand)
	if err != nil {
		return "", nil, fmt.Errorf("target %s: %w", name, err)
	}
	spec.env = process.EnvList(envs, env.RunID)
	if n > 1 {
		spec.env = append(spec.env, "IDEMCHECK_REPLICA="+strconv.Itoa(i))
	}
	c, err := run(ctx, pool, spec)
	if err != nil {
		return "", nil, err
	}
	return base, c, nil
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
