// Package process runs a target server as a local child process and applies
// the process-level faults to it: crash (SIGKILL), pause (SIGSTOP), resume
// (SIGCONT), restart and graceful stop.
//
// [Start] launches the command from a [Spec] and returns only once the server is
// ready (it answers 2xx on Ready.URL or accepts TCP on Ready.Addr). A server
// that exits while starting is reported at once, with its exit status and the
// tail of its output, as a *StartError; so is one that is not ready within
// Ready.Timeout.
//
// Each run of the command (an incarnation; Restart makes a new one) gets its
// own process group, and every signal goes to the whole group, so that a
// server started through a shell script or a launcher is crashed, paused and
// stopped together with its children. When the group's leader exits, for
// whatever reason, what is left of its group is killed and Exited is closed
// only once the group is gone: a port held by a dying child is released
// before Restart starts the next incarnation. The child also gets
// Pdeathsig=SIGKILL so that it dies with the harness.
//
// A descendant that leaves the process group (setsid, setpgid, a double
// fork) is still found: every process an incarnation starts inherits two
// environment entries, OwnerVar (this idemcheck process, by pid and start
// time) and ScopeVar (unique to the incarnation). When the incarnation
// ends, KillTagged scans /proc and SIGKILLs whatever still carries its
// scope, however it ignores SIGTERM, before Exited is closed. FindTagged
// and OwnerAlive let a later sweep find what a killed idemcheck left.
//
// Limits: a descendant that replaces its environment (execve with a fresh
// one, env -i) carries no tag and is out of reach once it leaves the group.
// No cgroup is used: the tag scan works unprivileged everywhere /proc does.
// Pdeathsig covers only the direct child. Pdeathsig fires when the OS
// thread that started the child ends, and Go ends a thread only when a
// goroutine locked to it with runtime.LockOSThread exits: do not call Start
// or Restart from such a goroutine. The package is Linux only.
//
// Output keeps the last 64 KiB of the combined stdout and stderr of all
// incarnations, for error messages and reports.
package process
