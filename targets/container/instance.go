package container

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/targets/process"
)

// outputLines is how many trailing lines of a container's output an error
// message shows.
const outputLines = 20

// killLimit bounds the wait for a killed container to stop.
const killLimit = 30 * time.Second

// runSpec is a Launch with every template expanded.
type runSpec struct {
	target       string // the target's name, for messages and labels
	image        string // as the target names it, for messages
	imageID      string // the image to run, when it was built by its id
	runID        string
	stateDir     string // on the host; mounted at StateDir
	user         string
	cmd          []string
	env          []string // K=V
	readyURL     string
	readyTimeout time.Duration
}

// instance is one container: created once, started, killed and started
// again by crash faults, removed by close. The engine is called directly
// (pool.Client) rather than through pool.RunWithOptions, which would pull
// a missing image from a registry, takes no context, and loses the
// container's id when its start fails, so it could not be removed.
type instance struct {
	pool *dockertest.Pool
	spec runSpec
	name string
	id   string // the container's id; its name until it was created

	mu     sync.Mutex // serialises kill, restart and close
	down   bool       // stopped by the harness, not started since
	closed bool
	// gen counts the starts; watch reports the stop of the start it was
	// begun for only. unasked says how the container stopped when it
	// stopped by itself (no kill, restart or close asked for it).
	gen     int
	unasked string
	unwatch context.CancelFunc
}

// run creates the container and starts it. On any error, whatever was
// created has been removed.
func run(ctx context.Context, pool *dockertest.Pool, spec runSpec) (*instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("container %q: not started: %w", spec.target, err)
	}
	if _, err := pool.Client.InspectImage(spec.run()); err != nil {
		switch {
		case errors.Is(err, dc.ErrNoSuchImage) && spec.imageID != "":
			return nil, fmt.Errorf("container %q: the image built for this run as %s (%s) is no longer in the Docker engine at %s: another build of that name from another binary replaced and removed it; give the image a name of its own", spec.target, spec.image, shortID(strings.TrimPrefix(spec.imageID, "sha256:")), pool.Client.Endpoint())
		case errors.Is(err, dc.ErrNoSuchImage):
			return nil, fmt.Errorf("container %q: image %q is not in the Docker engine at %s; build it first (container.Build makes one FROM scratch from a static binary); idemcheck never pulls images", spec.target, spec.image, pool.Client.Endpoint())
		}
		return nil, fmt.Errorf("container %q: inspect image %q: %w", spec.target, spec.image, err)
	}
	in := &instance{pool: pool, spec: spec, name: containerName(spec)}
	in.id = in.name
	var binds []string
	if spec.stateDir != "" {
		dir, err := filepath.Abs(spec.stateDir)
		if err != nil {
			return nil, fmt.Errorf("container %q: state directory: %w", spec.target, err)
		}
		binds = []string{dir + ":" + StateDir}
	}
	// The create is not cancelled with ctx: the engine could finish a
	// create the client gave up on, leaving a container nobody knows of.
	// It is quick, and bounded on its own.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), apiLimit)
	c, err := pool.Client.CreateContainer(dc.CreateContainerOptions{
		Name: in.name,
		Config: &dc.Config{
			Image:  spec.run(),
			Cmd:    spec.cmd,
			Env:    spec.env,
			User:   spec.user,
			Labels: map[string]string{RunLabel: spec.runID, TargetLabel: spec.target, OwnerLabel: process.OwnerID()},
		},
		HostConfig: &dc.HostConfig{
			// The host's network: the container reaches the fakes on the
			// host's loopback and listens there itself; nothing is published.
			NetworkMode:   "host",
			Binds:         binds,
			RestartPolicy: dc.NeverRestart(),
		},
		Context: cctx,
	})
	cancel()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("container %q: create from image %q: %w", spec.target, spec.image, err), in.remove())
	}
	in.id = c.ID
	if err := in.startReady(ctx); err != nil {
		return nil, errors.Join(err, in.remove())
	}
	return in, nil
}

// run is the image to create the containers from: the one built for
// them, by its id, else the image named.
func (s runSpec) run() string {
	if s.imageID != "" {
		return s.imageID
	}
	return s.image
}

// containerName is unique per start, and says whose container it is.
func containerName(spec runSpec) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := unsafeName.ReplaceAllString(spec.target, "_")
	if name == "" {
		name = "target"
	}
	run := spec.runID
	if len(run) > 8 {
		run = run[:8]
	}
	return strings.Join([]string{"idemcheck", name, run, hex.EncodeToString(b[:])}, "-")
}

var unsafeName = lazyregexp.New(`[^a-zA-Z0-9_.-]+`)

// startReady starts the container and waits until it is ready; then
// watches it (see watch).
func (in *instance) startReady(ctx context.Context) error {
	if err := in.start(ctx); err != nil {
		return err
	}
	in.watch()
	return nil
}

// watch waits aside for the container's stop, and records it (unasked)
// when nothing of the harness asked for it: not a kill, a restart (a
// later start) or a close.
func (in *instance) watch() {
	if in.unwatch != nil {
		in.unwatch()
	}
	ctx, cancel := context.WithCancel(context.Background())
	in.unwatch = cancel
	in.gen++
	gen := in.gen
	go func() {
		code, err := in.pool.Client.WaitContainerWithContext(in.id, ctx)
		if err != nil {
			return // no longer watched
		}
		msg := fmt.Sprintf("container %q (%s) exited by itself (exit code %d)", in.spec.target, shortID(in.id), code)
		in.mu.Lock()
		asked := in.down || in.closed || in.gen != gen
		if !asked {
			in.unasked = msg // at once: the output follows
		}
		in.mu.Unlock()
		if asked {
			return
		}
		if out := in.logs(ctx); out != "" {
			in.mu.Lock()
			if in.unasked == msg && in.gen == gen {
				in.unasked = msg + "; last output:\n    | " + strings.ReplaceAll(out, "\n", "\n    | ")
			}
			in.mu.Unlock()
		}
	}()
}

// exitedByItself says how the container stopped when it stopped by
// itself since its last start; "" otherwise.
func (in *instance) exitedByItself() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.down || in.closed {
		return ""
	}
	return in.unasked
}

// start starts the container and waits until it is ready.
func (in *instance) start(ctx context.Context) error {
	err := in.pool.Client.StartContainerWithContext(in.id, nil, ctx)
	var running *dc.ContainerAlreadyRunning
	if err != nil && !errors.As(err, &running) {
		if ctx.Err() != nil {
			return fmt.Errorf("container %q: start abandoned before it was ready: %w", in.spec.target, ctx.Err())
		}
		return in.failure(ctx, fmt.Sprintf("could not be started: %v", err), "",
			"check that the image's entrypoint exists and is a static Linux binary, and that the state directory can be mounted")
	}
	return in.awaitReady(ctx)
}

// kill crashes the container (SIGKILL) and waits until it has stopped.
func (in *instance) kill() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return fmt.Errorf("container %q: closed, cannot be killed", in.spec.target)
	}
	in.down = true
	return in.stop()
}

// stop kills the container if it runs and waits until it has stopped.
func (in *instance) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), killLimit)
	defer cancel()
	err := in.pool.Client.KillContainer(dc.KillContainerOptions{ID: in.id, Signal: dc.SIGKILL, Context: ctx})
	var notRunning *dc.ContainerNotRunning
	if err != nil && !errors.As(err, &notRunning) {
		return fmt.Errorf("container %q: docker kill %s: %w", in.spec.target, shortID(in.id), err)
	}
	if _, err := in.pool.Client.WaitContainerWithContext(in.id, ctx); err != nil {
		return fmt.Errorf("container %q: killed, but not seen to stop within %v: %w", in.spec.target, killLimit, err)
	}
	return nil
}

// restart starts the container again (killing it first if it runs) and
// waits until it is ready. After a failed restart it is stopped, and
// restart may be called again.
func (in *instance) restart(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return fmt.Errorf("container %q: closed, cannot be restarted", in.spec.target)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("container %q: not restarted: %w", in.spec.target, err)
	}
	in.down = true
	in.unasked = ""
	if err := in.stop(); err != nil {
		return err
	}
	if err := in.startReady(ctx); err != nil {
		return errors.Join(err, in.stop())
	}
	in.down = false
	return nil
}

// close force-removes the container. It reports a container that had
// exited by itself with a failure, as a crash nobody caused.
func (in *instance) close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil
	}
	in.closed = true
	if in.unwatch != nil {
		in.unwatch()
	}
	defer release(in.pool)
	var crashed error
	if !in.down {
		ctx, cancel := context.WithTimeout(context.Background(), apiLimit)
		c, err := in.pool.Client.InspectContainerWithContext(in.id, ctx)
		cancel()
		if err == nil && !c.State.Running && c.State.ExitCode != 0 {
			crashed = in.failure(context.Background(),
				fmt.Sprintf("had already exited by itself before Close (exit code %d)", c.State.ExitCode),
				"it to run until stopped", "the target crashed; its output says why")
		}
	}
	return errors.Join(crashed, in.remove())
}

// remove force-removes the container; one that is already gone is fine.
func (in *instance) remove() error {
	ctx, cancel := context.WithTimeout(context.Background(), apiLimit)
	defer cancel()
	err := in.pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: in.id, Force: true, RemoveVolumes: true, Context: ctx})
	var gone *dc.NoSuchContainer
	if err != nil && !errors.As(err, &gone) {
		return fmt.Errorf("container %q: could not remove %s: %w; remove it with: docker rm -f %s", in.spec.target, in.name, err, in.name)
	}
	return nil
}

// logs returns the last lines of the container's output.
func (in *instance) logs(ctx context.Context) string {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var buf bytes.Buffer
	err := in.pool.Client.Logs(dc.LogsOptions{
		Context: lctx, Container: in.id,
		OutputStream: &buf, ErrorStream: &buf, Stdout: true, Stderr: true,
		Tail: strconv.Itoa(outputLines),
	})
	if err != nil {
		return fmt.Sprintf("(its output could not be read: %v)", err)
	}
	return strings.TrimRight(buf.String(), "\n")
}

// failure builds an error that says what went wrong, what was expected,
// the container's last output and what to do.
func (in *instance) failure(ctx context.Context, reason, want, hint string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "container %q (%s, image %s) %s", in.spec.target, in.name, in.spec.image, reason)
	if want != "" {
		fmt.Fprintf(&b, "; expected %s", want)
	}
	if out := in.logs(ctx); out == "" {
		b.WriteString("; it printed nothing\n")
	} else {
		b.WriteString("; last output:\n")
		for _, l := range strings.Split(out, "\n") {
			b.WriteString("    | ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	b.WriteString("hint: ")
	b.WriteString(hint)
	return errors.New(b.String())
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
