package cli

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/targets/process"
)

// Limits on what is kept of a call's output.
const (
	// maxStdout is how much of stdout is kept to parse the reply.
	maxStdout = 1 << 20
	// maxStderr is how much of the end of stderr is kept, for evidence.
	maxStderr = 2048
	// maxBody is how much of stdout a Reply carries as evidence.
	maxBody = 2048
	// ioGrace bounds the wait for the output pipes to close once the
	// tool's group is dead, in case something that left the group still
	// holds them.
	ioGrace = time.Second
)

// Why the harness killed an invocation.
const (
	killTimeout = "timeout"
	killCrash   = "crash"
	killCancel  = "cancel"
)

// invocation is one run of the tool: one child, leader of its own process
// group (pgid == pid).
type invocation struct {
	pid   int
	scope string        // its process.ScopeVar entry: what carries it dies with it
	since process.Since // the leader's start: its descendants start later
	done  chan struct{} // closed once the leader is reaped, its group gone and its scope empty

	mu       sync.Mutex
	exited   bool   // the leader has exited; its pid must not be signalled any more
	killedBy string // why the harness killed it, "" if it did not
}

// kill SIGKILLs the invocation's group, unless it has already exited.
func (in *invocation) kill(why string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.exited {
		return
	}
	if in.killedBy == "" {
		in.killedBy = why
	}
	// While the leader is unreaped its pid, the group id, cannot be reused.
	_ = syscall.Kill(-in.pid, syscall.SIGKILL)
}

// result is what one invocation did.
type result struct {
	stdout    []byte
	truncated bool // stdout was longer than maxStdout
	// safe: the call was of a safe operation, whose exit 0 stands even
	// when its reply was cut (no effect is read from it).
	safe     bool
	stderr   string
	exitCode int            // -1 when it did not exit by itself
	signal   syscall.Signal // the signal that ended it, 0 if none
	killedBy string
	waitErr  error // set when it could not be waited for
	elapsed  time.Duration
}

// command prepares an exec.Cmd for argv: its own process group, killed
// with the harness, stdin from /dev/null, output captured.
func (t *Target) command(argv []string) *exec.Cmd {
	return &exec.Cmd{
		Path: t.path,
		Args: argv,
		// The scope tags everything the call starts, even what leaves
		// the group; exec keeps the last of duplicate entries.
		Env: append(t.env[:len(t.env):len(t.env)], process.OwnerVar+"="+process.OwnerID(), process.NewScope()),
		Dir: t.cfg.Dir,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,            // its own group: a kill reaches its children
			Pdeathsig: syscall.SIGKILL, // dies with the harness
		},
		Stdout:    &headBuffer{max: maxStdout},
		Stderr:    &tailBuffer{max: maxStderr},
		WaitDelay: ioGrace,
	}
}

var errClosed = errors.New("the target is closed")

// start starts cmd and registers it as running, so that Kill finds it.
func (t *Target) start(cmd *exec.Cmd) (*invocation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errClosed
	}
	// Started under the lock: Kill either sees the invocation or runs
	// before it exists.
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	in := &invocation{pid: cmd.Process.Pid, scope: cmd.Env[len(cmd.Env)-1], done: make(chan struct{})}
	in.since, _ = process.StartOf(in.pid) // unreaped until wait says so: the pid is its
	t.running[in] = struct{}{}
	return in, nil
}

// wait waits for the invocation to end, killing it at the timeout or when
// ctx is done, then kills whatever is left of its group, reaps it and
// waits until the group is gone.
func (t *Target) wait(ctx context.Context, in *invocation, cmd *exec.Cmd, timeout time.Duration) result {
	begin := time.Now()
	timer := time.AfterFunc(timeout, func() { in.kill(killTimeout) })
	stop := context.AfterFunc(ctx, func() { in.kill(killCancel) })

	waitErr := process.WaitExited(in.pid)
	in.mu.Lock()
	if waitErr == nil {
		// Nothing the call started may outlive it.
		_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	}
	in.exited = true
	killedBy := in.killedBy
	in.mu.Unlock()
	timer.Stop()
	stop()

	err := cmd.Wait()
	if waitErr == nil {
		process.WaitGroupGone(in.pid)
	}
	// What left the group (setsid, a double fork) is found by its tag.
	process.KillTaggedSince(in.scope, in.since)
	t.mu.Lock()
	delete(t.running, in)
	t.mu.Unlock()
	close(in.done)

	out := cmd.Stdout.(*headBuffer)
	res := result{
		stdout:    out.buf,
		truncated: out.dropped > 0,
		stderr:    cmd.Stderr.(*tailBuffer).String(),
		exitCode:  -1,
		killedBy:  killedBy,
		elapsed:   time.Since(begin),
	}
	if st := cmd.ProcessState; st != nil {
		ws, _ := st.Sys().(syscall.WaitStatus)
		switch {
		case ws.Exited():
			res.exitCode = ws.ExitStatus()
		case ws.Signaled():
			res.signal = ws.Signal()
		}
	} else if err != nil {
		res.waitErr = err
	}
	return res
}

// headBuffer keeps the first max bytes written to it and counts the rest.
// It never fails, so the tool never gets EPIPE.
type headBuffer struct {
	max     int
	buf     []byte
	dropped int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	b.dropped += len(p) - max(room, 0)
	return len(p), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	s := b.buf
	if len(s) > b.max {
		s = s[len(s)-b.max:]
		return "…" + string(s)
	}
	if b.cut {
		return "…" + string(s)
	}
	return string(s)
}
