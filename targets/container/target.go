package container

import (
	"context"
	"errors"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// Kind is the harness kind of container targets.
const Kind = "container"

// Target is an HTTP target served by a container: calls and bursts go
// through the HTTP adapter, crashes kill and restart the container.
type Target struct {
	http *httptarget.Target
	c    *instance
	info harness.TargetInfo
}

var (
	_ harness.Target  = (*Target)(nil)
	_ harness.Crasher = (*Target)(nil)
	_ harness.Burster = (*Target)(nil)
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

// Kill implements harness.Crasher: docker kill (SIGKILL), returning once
// the container has stopped. Killing a stopped container does nothing.
func (t *Target) Kill() error { return t.c.kill() }

// Restart implements harness.Crasher: start the same container again (same
// command, environment, filesystem and state directory), killing it first
// if it still runs, and return once it is ready.
func (t *Target) Restart(ctx context.Context) error { return t.c.restart(ctx) }

// Close stops the proxy and force-removes the container. It reports a
// container that had exited by itself, with its last output.
func (t *Target) Close() error {
	return errors.Join(t.http.Close(), t.c.close())
}

// ContainerID returns the container's id.
func (t *Target) ContainerID() string { return t.c.id }

// Logs returns the last lines of the container's output.
func (t *Target) Logs(ctx context.Context) string { return t.c.logs(ctx) }
