package process

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ioGrace bounds how long reaping waits for the output pipes to close after
// the leader exits, in case a descendant that left the group still holds
// them.
const ioGrace = 2 * time.Second

// Process is a target server running as a child process, with the faults
// that can be applied to it. Its methods are safe for concurrent use; Stop,
// Kill and Restart are serialised.
type Process struct {
	spec Spec // Command copied; Ready used by Restart
	name string
	path string   // resolved Command[0]
	env  []string // captured at Start, reused by Restart
	dir  string   // absolute, captured at Start
	out  *outputWriter

	opMu sync.Mutex // serialises Stop, Kill and Restart

	mu  sync.Mutex
	inc *incarnation // current incarnation
}

// Start runs spec.Command and waits until it is ready (see Ready). It
// returns a *StartError if the command cannot be started, exits before it
// is ready, or is not ready within Ready.Timeout; if ctx is done first it
// returns an error wrapping ctx.Err(). On every error path whatever was
// started has been killed and is gone.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	name := spec.label()
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return nil, fmt.Errorf("process %q: Spec.Command is empty; set it to the server's argv, e.g. []string{\"./shop\", \"-addr\", \"127.0.0.1:8080\"}", name)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("process %q: not started: %w", name, err)
	}
	p := &Process{
		spec: spec,
		name: name,
		env:  append(OwnBaseEnv(), spec.Env...),
		out:  &outputWriter{tail: newTail(outputLimit), extra: spec.Stdout},
	}
	p.spec.Command = append([]string(nil), spec.Command...)
	p.spec.Env = nil // folded into env

	path := p.spec.Command[0]
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, p.cannotStart(err, "install it or put it on PATH, or give start.command's program as a path (with a slash, such as ./server)")
		}
		path = lp
	}
	p.path = path

	dir := spec.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, p.cannotStart(err, "check start.dir")
	}
	p.dir = abs

	in, err := p.spawn()
	if err != nil {
		return nil, err
	}
	if err := p.awaitReady(ctx, in); err != nil {
		return nil, err
	}
	return p, nil
}

// spawn starts a new incarnation and makes it current.
func (p *Process) spawn() (*incarnation, error) {
	cmd := &exec.Cmd{
		Path: p.path,
		Args: p.spec.Command,
		// The scope tags everything this incarnation starts, even what
		// leaves the group; exec keeps the last of duplicate entries.
		Env:    append(p.env[:len(p.env):len(p.env)], OwnerVar+"="+OwnerID(), NewScope()),
		Dir:    p.dir,
		Stdout: p.out, // the same writer twice: one pipe, output interleaved as written
		Stderr: p.out,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,            // its own group, so signals reach its children too
			Pdeathsig: syscall.SIGKILL, // dies with the harness
		},
		WaitDelay: ioGrace,
	}
	if err := cmd.Start(); err != nil {
		return nil, p.cannotStart(err, "check that start.command's program exists and is executable, and that start.dir exists")
	}
	in := &incarnation{pid: cmd.Process.Pid, scope: cmd.Env[len(cmd.Env)-1], done: make(chan struct{})}
	in.since, _ = StartOf(in.pid) // unreaped until watch says so: the pid is its
	p.mu.Lock()
	p.inc = in
	p.mu.Unlock()
	go in.watch(cmd)
	return in, nil
}

func (p *Process) cannotStart(err error, hint string) *StartError {
	return &StartError{
		Name:     p.name,
		Reason:   fmt.Sprintf(reasonNoStart, err),
		ExitCode: -1,
		Output:   p.Output(),
		hint:     hint,
	}
}

func (p *Process) current() *incarnation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inc
}

// Pid returns the pid of the current incarnation, which is also its process
// group id. After the incarnation has exited it still returns that pid.
func (p *Process) Pid() int { return p.current().pid }

// Exited returns a channel closed when the current incarnation has exited:
// its process has been reaped and no live process is left in its group.
// Call it again after Restart to watch the new incarnation.
func (p *Process) Exited() <-chan struct{} { return p.current().done }

// ExitedByItself says how the current incarnation ended when it exited
// without the harness asking (no Stop, Kill or Restart): its exit status
// and its last lines of output, and whether that status was success (a
// launcher that started the server elsewhere and returned, say). why is
// "" while the incarnation runs, and when its end was asked for or
// already reported.
func (p *Process) ExitedByItself() (why string, success bool) {
	in := p.current()
	select {
	case <-in.done:
	default:
		return "", false
	}
	if in.isAccounted() {
		return "", false
	}
	code, status := in.exitStatus()
	why = fmt.Sprintf("process %q (pid %d) exited by itself (%s)", p.name, in.pid, status)
	if lines := lastLines(p.Output(), outputLines); lines != "" {
		why += "; last output:\n    | " + strings.ReplaceAll(lines, "\n", "\n    | ")
	}
	return why, code == 0
}

// Output returns the last 64 KiB of the combined stdout and stderr of all
// incarnations so far. Output written just before a call may not be there
// yet; everything an incarnation wrote is there once Exited is closed.
func (p *Process) Output() string { return p.out.tail.String() }

// Stop asks the current incarnation to exit: SIGTERM (and SIGCONT, in case
// it is paused) to its process group, then, after StopGrace or when ctx is
// done, SIGKILL to the group. It returns once the group is gone. Stop is
// idempotent. It returns nil whenever the process exited because it was
// asked to, including when it had to be killed; it returns an error only if
// the process had already exited by itself with a failure status (a crash
// nobody caused), or if a signal could not be sent.
func (p *Process) Stop(ctx context.Context) error {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	in := p.current()

	if err := in.signal(syscall.SIGTERM, true); err != nil {
		if errors.Is(err, errExited) {
			<-in.done
			return p.unaskedExit(in)
		}
		return in.kill()
	}
	_ = in.signal(syscall.SIGCONT, false)

	grace := time.NewTimer(StopGrace)
	defer grace.Stop()
	select {
	case <-in.done:
		return nil
	case <-grace.C:
	case <-ctx.Done():
	}
	return in.kill()
}

// unaskedExit reports an incarnation that exited by itself with a failure.
func (p *Process) unaskedExit(in *incarnation) error {
	if in.isAccounted() || (in.state != nil && in.state.Success()) {
		return nil
	}
	_, status := in.exitStatus()
	msg := fmt.Sprintf("process %q (pid %d) had already exited by itself before Stop (%s); expected it to run until stopped", p.name, in.pid, status)
	if lines := lastLines(p.Output(), outputLines); lines != "" {
		msg += "; last output:\n    | " + strings.ReplaceAll(lines, "\n", "\n    | ")
	}
	return errors.New(msg + "\nhint: the target crashed; its output says why")
}

// Kill crashes the current incarnation: SIGKILL to its whole process group,
// then it waits until the group is gone. This is the crash fault. Killing an
// incarnation that has already exited does nothing and returns nil.
func (p *Process) Kill() error {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	return p.current().kill()
}

// Pause freezes the current incarnation's process group with SIGSTOP and
// returns once every thread of the group has stopped. A paused server keeps
// its sockets open: connections are accepted by the kernel but nothing
// answers. Resume undoes it; Stop, Kill and Restart work on a paused
// process.
func (p *Process) Pause() error {
	in := p.current()
	if err := p.sendFault(in, syscall.SIGSTOP, "pause"); err != nil {
		return err
	}
	if err := in.awaitStopped(); err != nil {
		if errors.Is(err, errExited) {
			return fmt.Errorf("process %q: pid %d exited while being paused", p.name, in.pid)
		}
		return fmt.Errorf("process %q: pause: %w", p.name, err)
	}
	return nil
}

// Resume lets a paused process group run again with SIGCONT. Resuming a
// process that is not paused does nothing.
func (p *Process) Resume() error { return p.sendFault(p.current(), syscall.SIGCONT, "resume") }

func (p *Process) sendFault(in *incarnation, sig syscall.Signal, what string) error {
	err := in.signal(sig, false)
	if errors.Is(err, errExited) {
		return fmt.Errorf("process %q: cannot %s pid %d: it is not running (it has exited); Restart it first", p.name, what, in.pid)
	}
	if err != nil {
		return fmt.Errorf("process %q: cannot %s: %w", p.name, what, err)
	}
	return nil
}

// Restart kills the current incarnation if it is still running, starts the
// command again with the same spec, environment and directory, and waits
// until it is ready. Errors are as for Start; after a failed Restart the
// process is not running and Restart may be called again. If ctx is already
// done, Restart does nothing and returns an error wrapping ctx.Err().
func (p *Process) Restart(ctx context.Context) error {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("process %q: not restarted: %w", p.name, err)
	}
	if err := p.current().kill(); err != nil {
		return fmt.Errorf("process %q: restart: %w", p.name, err)
	}
	in, err := p.spawn()
	if err != nil {
		return err
	}
	return p.awaitReady(ctx, in)
}
