package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// errExited is returned by incarnation.signal once the leader has exited:
// from then on its pid and group id must not be signalled, since the numbers
// may be reused.
var errExited = errors.New("process has exited")

// incarnation is one run of the command: one child, leader of its own
// process group (pgid == pid).
type incarnation struct {
	pid   int
	scope string        // its ScopeVar entry: what carries it dies with it
	since Since         // the leader's start: its descendants start later
	done  chan struct{} // closed when the leader is reaped, its group is gone and its scope is empty

	mu        sync.Mutex
	exited    bool // the leader has exited (not yet reaped while watch holds mu)
	accounted bool // its end needs no report: the harness asked for it, or a StartError told

	// Written by watch before done is closed; read only after done.
	state   *os.ProcessState
	waitErr error
}

// watch is the one goroutine per incarnation. It waits for the leader to
// exit without reaping it, so that its pid, which is also the group id,
// cannot be reused; kills whatever is left of the group; then reaps the
// leader and waits for the rest of the group to die.
func (in *incarnation) watch(cmd *exec.Cmd) {
	waitErr := waitExitedNoReap(in.pid)
	in.mu.Lock()
	if waitErr == nil {
		_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	}
	in.exited = true
	in.mu.Unlock()

	in.waitErr = cmd.Wait()
	in.state = cmd.ProcessState
	if waitErr == nil {
		waitGroupGone(in.pid)
	}
	// What left the group (setsid, a double fork) is found by its tag.
	KillTaggedSince(in.scope, in.since)
	close(in.done)
}

// signal sends sig to the incarnation's process group. stopping records that
// the harness asked the process to die, so its exit is not reported by Stop
// as a crash. It returns errExited if the leader has already exited.
func (in *incarnation) signal(sig syscall.Signal, stopping bool) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.exited {
		return errExited
	}
	if stopping {
		in.accounted = true
	}
	// ESRCH cannot happen while the leader is unreaped; tolerate it anyway.
	if err := syscall.Kill(-in.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to process group %d: %w", sig, in.pid, err)
	}
	return nil
}

// kill crashes the incarnation and waits until its group is gone.
func (in *incarnation) kill() error {
	err := in.signal(syscall.SIGKILL, true)
	if err != nil && !errors.Is(err, errExited) {
		return err // still running and out of reach: waiting would hang
	}
	<-in.done
	return nil
}

// account records that the incarnation's end has been reported.
func (in *incarnation) account() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.accounted = true
}

// isAccounted reports whether the incarnation's end needs no report.
func (in *incarnation) isAccounted() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.accounted
}

// exitStatus describes how the leader ended; valid after done.
func (in *incarnation) exitStatus() (code int, status string) {
	if in.state == nil {
		if in.waitErr != nil {
			return -1, in.waitErr.Error()
		}
		return -1, "unknown exit status"
	}
	return in.state.ExitCode(), in.state.String()
}

// pauseLimit bounds the wait for a paused group to stop. Only a process
// stuck in uninterruptible sleep takes longer.
const pauseLimit = 5 * time.Second

// awaitStopped waits, polling with a short backoff, until the whole group
// has stopped after SIGSTOP. It returns errExited if the leader exits
// meanwhile.
func (in *incarnation) awaitStopped() error {
	deadline := time.Now().Add(pauseLimit)
	delay := 100 * time.Microsecond
	for {
		in.mu.Lock()
		exited := in.exited
		in.mu.Unlock()
		switch {
		case exited:
			return errExited
		case groupStopped(in.pid):
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("process group %d still has running threads %v after SIGSTOP", in.pid, pauseLimit)
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
}
