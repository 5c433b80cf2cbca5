package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeEscapingConfig writes a configuration whose server is started the
// way `go run` starts one: a launcher (here a shell) whose child, the
// server, runs in a session of its own (setsid), out of reach of the
// launcher's process group and of its Pdeathsig.
func writeEscapingConfig(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) is not installed (util-linux)")
	}
	return writeShopConfig(t, "escaping", `setsid "$0" __example shop --profile correct --listen "127.0.0.1:$1" --state "$2" >/dev/null 2>&1 & wait`)
}

// writeShopConfig writes a configuration whose target, name, is the
// reference shop started by the shell script script ($0 is this
// executable, $1 the port, $2 the state directory).
func writeShopConfig(t *testing.T, name, script string) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cfg := fmt.Sprintf(`version: 1
fakes:
  payments: {}
targets:
  - name: %s
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: ["sh", "-c", %q, %q, "{{port}}", "{{state_dir}}"]
      env: {PAYMENTS_URL: "{{fakes.payments.url}}"}
      ready: {path: /healthz}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"customer":"{{input.customer}}","amount":{{input.amount}},"memo":"{{marker}}"}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 999]}
`, name, script, exe)
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	return path
}

// startProgram runs the program as a process of its own, with tmp as its
// TMPDIR, and returns once it says a target has started.
func startProgram(t *testing.T, tmp string, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", "TMPDIR="+tmp)
	cmd.WaitDelay = 10 * time.Second
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Should it never say "started", the read below must still end.
	watchdog := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()
	sc := bufio.NewScanner(stderr)
	var seen strings.Builder
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "started") {
			waitServer(t)
			return cmd, stderr
		}
	}
	t.Fatalf("the program never started a target; it said:\n%s", seen.String())
	return nil, nil
}

// waitServer waits until a reference server (this binary run with
// "__example") is running.
func waitServer(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, pid := range tagged(t) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if bytes.HasPrefix(cmdline, []byte(exe+"\x00__example\x00")) {
				return
			}
		}
		time.Sleep(5 * time.Millisecond) // polling /proc: there is no event to wait on
	}
	t.Fatal("the server never started")
}

// requireNoRunDirs fails if an idemcheck run directory is left in tmp.
func requireNoRunDirs(t *testing.T, tmp string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(tmp, runDirPrefix+"*"))
	require.NoError(t, err)
	assert.Empty(t, left, "temporary directories left behind")
}

// TestKilledHarnessKillsEscapedServer SIGKILLs the program while its
// server, started through a launcher in a session of its own, runs: the
// guard kills the server and removes the run's directory.
func TestKilledHarnessKillsEscapedServer(t *testing.T) {
	tmp := t.TempDir()
	cmd, stderr := startProgram(t, tmp, "run", "-c", writeEscapingConfig(t))
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	_ = cmd.Wait()
	requireNoTargetsLeft(t)
	requireNoRunDirs(t, tmp)
}

// TestHangupStopsEverything: SIGHUP is an interruption like SIGINT and
// SIGTERM: exit 130, no process and no temporary directory left.
func TestHangupStopsEverything(t *testing.T) {
	tmp := t.TempDir()
	cmd, stderr := startProgram(t, tmp, "run", "-c", writeEscapingConfig(t))
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	rest, _ := io.ReadAll(stderr)
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "the program must exit with a status, got %v; it said:\n%s", err, rest)
	assert.Equal(t, exitInterrupted, ee.ExitCode(), string(rest))
	requireNoTargetsLeft(t)
	requireNoRunDirs(t, tmp)
}

// TestCleanupSweepsWhatAKilledRunLeft kills the program and its guard
// outright, so that nothing sweeps: `idemcheck cleanup` then kills the
// escaped server and removes the run's directory.
func TestCleanupSweepsWhatAKilledRunLeft(t *testing.T) {
	tmp := t.TempDir()
	cmd, stderr := startProgram(t, tmp, "run", "-c", writeEscapingConfig(t))
	guard := guardOf(t, cmd.Process.Pid)
	require.NoError(t, syscall.Kill(guard, syscall.SIGKILL))
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	_ = cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(tmp, runDirPrefix+"*"))
	require.Len(t, left, 1, "the killed run left its directory")
	require.NotEmpty(t, without(tagged(t), []int{guard}), "the killed run left its server")

	// The program itself, as a user runs it: its own run directory is
	// not where it looks for leftovers.
	cleanup := exec.Command(os.Args[0], "cleanup")
	cleanup.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", "TMPDIR="+tmp)
	cleanup.WaitDelay = 10 * time.Second
	out, err := cleanup.Output()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "removed 1 leftover directory")
	requireNoTargetsLeft(t)
	requireNoRunDirs(t, tmp)
}

// guardOf finds the guard process of the program with pid parent.
func guardOf(t *testing.T, parent int) int {
	t.Helper()
	for _, pid := range tagged(t) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if bytes.Contains(cmdline, []byte(guardSubcommand)) && bytes.Contains(stat, []byte(fmt.Sprintf(" %d ", parent))) {
			return pid
		}
	}
	t.Fatal("the program has no guard process")
	return 0
}

// TestProgramKillsWhatATargetLeftWithoutItsTag: a server that leaves a
// process behind in a session of its own, its environment emptied (no
// tag for a sweep to find), and whose parent then ends: the program, the
// subreaper its targets' orphans come back to, kills it before it exits.
func TestProgramKillsWhatATargetLeftWithoutItsTag(t *testing.T) {
	for _, tool := range []string{"setsid", "env", "sleep"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	// A duration no other process sleeps, to find it by.
	mark := fmt.Sprintf("86399.%d", time.Now().UnixNano()%1_000_000_000)
	find := func() []int {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if bytes.Contains(cmdline, []byte("sleep\x00"+mark)) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	t.Cleanup(func() {
		for _, pid := range find() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	path := writeShopConfig(t, "leaver", "setsid env -i sleep "+mark+` </dev/null >/dev/null 2>&1 & exec "$0" __example shop --profile correct --listen "127.0.0.1:$1" --state "$2"`)
	cmd := exec.Command(os.Args[0], "run", "-c", path, "--only", "retry.sequential", "--quiet")
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", "TMPDIR="+t.TempDir())
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	watchdog := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()
	require.NoError(t, cmd.Wait(), out.String())
	assert.Empty(t, find(), "the process the server left behind outlived the run")
}
