package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/internal/interrupt"
	"github.com/idemcheck/idemcheck/targets/container"
	"github.com/idemcheck/idemcheck/targets/process"
)

// guardSubcommand is the hidden subcommand of the guard process.
const guardSubcommand = "__guard"

// programMain is the program as main runs it, with what only a whole
// process may do: it handles SIGINT, SIGTERM and SIGHUP alike (exit 130),
// tags every process it starts (process.OwnerVar), keeps all temporary
// files (state directories, the targets' own TMPDIR) in one directory of
// its own, and starts a guard process. When the program ends, however it
// ends (its own SIGKILL included), whatever still carries its tag is
// killed and that directory removed: by the program itself on the way out,
// or by the guard, which waits for the end of a pipe the kernel closes
// when the program dies.
func programMain(args []string) int {
	return guarded(runDirBaseFor(args, os.Getenv), func(ctx context.Context) int {
		return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	})
}

// guarded runs body as programMain runs the program: with its signals,
// its tag, its run directory (made in base) and its guard.
func guarded(base string, body func(ctx context.Context) int) int {
	// Signals caught since the program's packages were initialised count:
	// one that came before this point cancels ctx at once.
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	keepPrivate()
	// What a target leaves behind comes back here when its parent ends,
	// whatever it dropped from its environment: killed before the exit.
	process.BecomeSubreaper()
	owner := process.OwnerID()
	os.Setenv(process.OwnerVar, owner)
	startTempDir = base
	dir, tmp, err := makeRunDir(startTempDir, owner)
	if err == nil {
		os.Setenv("TMPDIR", tmp)
	}
	release, guard := startGuard(owner, dir)
	code := body(ctx)
	interrupted := ctx.Err() != nil
	select {
	case <-interrupt.Notified(): // caught, whether or not ctx has heard yet
		interrupted = true
	default:
	}
	if interrupted && code != exitInterrupted {
		// Interrupted, though the command finished (or never looked):
		// the exit status says so, as for any interruption.
		fmt.Fprintln(os.Stderr, "idemcheck: interrupted")
		code = exitInterrupted
	}
	process.KillTagged(process.OwnerVar + "=" + owner)
	process.KillAdopted(guard)
	if dir != "" {
		_ = removeRunDir(dir)
	}
	release()
	return code
}

// startGuard starts the guard (this executable again, in its own process
// group so that a terminal's Ctrl-C does not reach it) and returns a
// function that lets it go, and its pid. If it cannot be started the
// program runs without it (pid 0): its own exit still sweeps, only its
// SIGKILL does not.
func startGuard(owner, dir string) (release func(), pid int) {
	exe, err := os.Executable()
	if err != nil {
		return func() {}, 0
	}
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}, 0
	}
	cmd := exec.Command(exe, guardSubcommand, owner, dir)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The guard must not carry the tag it sweeps.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, process.OwnerVar+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return func() {}, 0
	}
	go func() { _ = cmd.Wait() }() // reaped if it ends first
	return func() { w.Close() }, cmd.Process.Pid
}

// guardMain is the guard: it waits until the pipe from its idemcheck
// process closes, then kills what carries that process's tag and removes
// its directory.
func guardMain(args []string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	keepPrivate()
	if len(args) != 2 {
		return exitUsage
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	owner := args[0]
	process.KillTagged(process.OwnerVar + "=" + owner)
	if strings.HasPrefix(filepath.Base(args[1]), runDirPrefix) {
		_ = removeRunDir(args[1])
	}
	// Its containers too (a container engine may not be there at all).
	ctx, cancel := context.WithTimeout(context.Background(), guardDockerLimit)
	defer cancel()
	_, _ = container.RemoveOrphans(ctx, "", func(o string) bool { return o != owner && process.OwnerAlive(o) })
	return exitOK
}

// guardDockerLimit bounds the guard's removal of containers.
const guardDockerLimit = 30 * time.Second

// cmdCleanup sweeps what idemcheck processes that no longer run left
// behind: processes carrying their tag, their temporary directories, and
// their containers.
// A running idemcheck's processes and directory are left alone.
func cmdCleanup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cleanup")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return usageErr("cleanup: unexpected argument %q", fs.Arg(0))
	}
	procs, dirs := sweep()
	fmt.Fprintf(stdout, "cleanup: killed %s, removed %s\n", plural(procs, "leftover process", "leftover processes"), plural(dirs, "leftover directory", "leftover directories"))
	n, err := container.RemoveOrphans(ctx, "", process.OwnerAlive)
	var ue *container.UnreachableError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stdout, "cleanup: no container engine answers (%v): containers not checked\n", ue.Err)
	case err != nil:
		return harnessErr(fmt.Errorf("cleanup: %w", err), "remove them by hand: docker rm -f $(docker ps -aq --filter label="+container.OwnerLabel+")")
	default:
		fmt.Fprintf(stdout, "cleanup: removed %s\n", plural(n, "leftover container", "leftover containers"))
	}
	return nil
}

// sweep kills the tagged processes and removes the run directories (in
// runDirBase(), and in memTmpfs) of idemcheck processes that are gone.
func sweep() (procs, dirs int) {
	dead := map[string]bool{}
	for _, p := range process.FindTagged(process.OwnerVar, "") {
		if p.Value == process.OwnerID() || dead[p.Value] {
			continue
		}
		if !process.OwnerAlive(p.Value) {
			dead[p.Value] = true
			procs += process.KillTagged(process.OwnerVar + "=" + p.Value)
		}
	}
	dirs = sweepRunDirs(runDirBase())
	if memTmpfs != "" && memTmpfs != runDirBase() {
		dirs += sweepRunDirs(memTmpfs) // see runDirBaseFor
	}
	return procs, dirs
}
