package cli

import (
	"context"
	"os"
	"os/exec"
	"sync"

	"github.com/idemcheck/idemcheck/harness"
)

// gateShell is the shell that holds each copy of a burst at the gate.
const gateShell = "/bin/sh"

// gateScript waits for the gate (its stdin) to close, then becomes the
// tool: exec keeps the pid, the process group and the environment.
const gateScript = `read _; exec "$0" "$@"`

// Burst implements harness.Burster: n invocations of one call, released
// together. Starting a process takes a while (fork, exec, the runtime's
// start-up), and n of them started one after the other would be spread
// over many milliseconds: a tool whose check-and-claim takes less than
// that would never be caught. So every copy first starts as a tiny shell
// that waits on a pipe (its stdin) and then execs the tool; once all n
// wait at the gate, the pipes are closed in one tight loop and the n
// tools start at once. The tool itself sees stdin at end of file, as it
// does from /dev/null. Without /bin/sh the copies are started directly,
// as fast as possible.
func (t *Target) Burst(ctx context.Context, c harness.Call, n int) []harness.Reply {
	out := make([]harness.Reply, n)
	argv, _, err := t.argv(c)
	if err != nil {
		for i := range out {
			out[i] = harness.Reply{Outcome: harness.Fail, Error: err.Error()}
		}
		return out
	}
	_, statErr := os.Stat(gateShell)
	gated := statErr == nil
	cmds := make([]*exec.Cmd, n)
	gates := make([]*os.File, n)
	for i := range cmds {
		cmd := t.command(argv)
		if gated {
			r, w, err := os.Pipe()
			if err == nil {
				cmd.Path = gateShell
				cmd.Args = append([]string{"sh", "-c", gateScript, t.path}, argv[1:]...)
				cmd.Stdin = r
				gates[i] = w
			}
		}
		cmds[i] = cmd
	}
	ins := make([]*invocation, n)
	errs := make([]error, n)
	for i, cmd := range cmds {
		ins[i], errs[i] = t.start(cmd)
		if r, ok := cmd.Stdin.(*os.File); ok {
			r.Close() // the child has its own copy
		}
	}
	// Open the gate: every copy execs the tool now.
	for _, w := range gates {
		if w != nil {
			w.Close()
		}
	}
	var wg sync.WaitGroup
	for i := range cmds {
		if errs[i] != nil {
			out[i] = t.notStarted(errs[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = t.reply(t.wait(ctx, ins[i], cmds[i], t.cfg.Timeout), t.cfg.Timeout, "", 0)
		}()
	}
	wg.Wait()
	return out
}
