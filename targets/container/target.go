package container

import (
	"context"
	"errors"
	"sync"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// Kind is the harness kind of container targets.
const Kind = "container"

// Target is an HTTP target served by a container, or by several of one
// image (Launch.Replicas): calls and bursts go through the HTTP adapter,
// crashes kill and restart every container.
type Target struct {
	http *httptarget.Target
	cs   []*instance
	info harness.TargetInfo
}

var (
	_ harness.Target  = (*Target)(nil)
	_ harness.Crasher = (*Target)(nil)
	_ harness.Burster = (*Target)(nil)
	_ harness.Watched = (*Target)(nil)
)

// Info implements harness.Target: the HTTP adapter's, with kind "container".
func (t *Target) Info() harness.TargetInfo { return t.info }

// BaseURL is the container's URL, where an http read-back is taken.
func (t *Target) BaseURL() string { return t.http.BaseURL() }

// Call implements harness.Target.
func (t *Target) Call(ctx context.Context, c harness.Call) harness.Reply { return t.http.Call(ctx, c) }

// Burst implements harness.Burster.
func (t *Target) Burst(ctx context.Context, c harness.Call, n int) []harness.Reply {
	return t.http.Burst(ctx, c, n)
}

// Supports implements harness.Target: what the HTTP adapter supports, and
// the crash faults.
func (t *Target) Supports(f faults.Fault) bool {
	if _, ok := f.(faults.CrashFault); ok {
		return true
	}
	return t.http.Supports(f)
}

// Kill implements harness.Crasher: docker kill (SIGKILL) every container,
// at once, returning once they have stopped. Killing a stopped container
// does nothing.
func (t *Target) Kill() error {
	return t.each(func(c *instance) error { return c.kill() })
}

// Restart implements harness.Crasher: start the same containers again
// (same command, environment, filesystem and state directory), killing
// them first if they still run, and return once every one is ready.
func (t *Target) Restart(ctx context.Context) error {
	return t.each(func(c *instance) error { return c.restart(ctx) })
}

// each runs fn on every container side by side, and joins their errors.
func (t *Target) each(fn func(*instance) error) error {
	if len(t.cs) == 1 {
		return fn(t.cs[0])
	}
	errs := make([]error, len(t.cs))
	var wg sync.WaitGroup
	for i, c := range t.cs {
		wg.Go(func() { errs[i] = fn(c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close stops the proxy and force-removes the containers. It reports a
// container that had exited by itself, with its last output.
func (t *Target) Close() error {
	err := t.http.Close()
	for _, c := range t.cs {
		err = errors.Join(err, c.close())
	}
	return err
}

// Down implements harness.Watched: how the first container that stopped
// by itself (no crash fault killed it) ended, with its last output; "".
func (t *Target) Down() string {
	for _, c := range t.cs {
		if why := c.exitedByItself(); why != "" {
			return why // it names the container, NAME#i of several
		}
	}
	return ""
}

// ContainerID returns the id of the first container.
func (t *Target) ContainerID() string { return t.cs[0].id }

// ContainerIDs returns the id of every container, the first first.
func (t *Target) ContainerIDs() []string {
	out := make([]string, len(t.cs))
	for i, c := range t.cs {
		out[i] = c.id
	}
	return out
}

// Logs returns the last lines of the first container's output.
func (t *Target) Logs(ctx context.Context) string { return t.cs[0].logs(ctx) }
