package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// waitLimit bounds every wait on an event: a deadline for a hang, not a
// timing assertion.
const waitLimit = 10 * time.Second

// toolConfig is an adapter config that runs the helper tool in mode,
// with one mutating operation "create" and one safe operation "show".
func toolConfig(mode string) clitarget.Config {
	return clitarget.Config{
		Name:    "tool",
		Command: []string{os.Args[0], "--store", "x"},
		// A -race binary sleeps a second at exit unless told not to.
		Env: map[string]string{"CLITARGET_TEST_TOOL": mode, "GORACE": "atexit_sleep_ms=0"},
		Operations: []clitarget.Operation{
			{Name: "create", Mutating: true, Args: []string{"create", "--memo", "order {{marker}}", "--amount", "{{input.amount}}"},
				Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 9}}},
			{Name: "show", Args: []string{"show", "--trace", "{{marker}}"}},
		},
	}
}

// mustNew makes an adapter for cfg and closes it at cleanup.
func mustNew(t testing.TB, cfg clitarget.Config) *clitarget.Target {
	t.Helper()
	tg, err := clitarget.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// call makes one attempt, failing the test if Call does not return in time.
func call(t testing.TB, tg harness.Target, c harness.Call) harness.Reply {
	t.Helper()
	if c.ID == "" {
		c.ID = "run-1-1"
	}
	if c.Operation == "" {
		c.Operation = "create"
	}
	got := make(chan harness.Reply, 1)
	go func() { got <- tg.Call(context.Background(), c) }()
	return recv(t, got, "Call to return")
}

// recv waits for a value on ch, failing the test after waitLimit.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("no %s within %v", what, waitLimit)
		var zero T
		return zero
	}
}

func mustFault(t testing.TB, name string, settings map[string]any) faults.Fault {
	t.Helper()
	f, err := faults.Builtin().New(name, settings)
	require.NoError(t, err)
	return f
}

// tagged returns the pids of live processes carrying this test binary's
// tag, other than this one.
func tagged(t testing.TB) []int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	require.NoError(t, err)
	var pids []int
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscan(filepath.Base(d), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(testTag)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue // a zombie is already dead
		}
		pids = append(pids, pid)
	}
	return pids
}

// requireNothingLeft fails if any process the tests started is alive.
// The adapter waits until a call's group is gone before it returns, so
// nothing may be left at all: no polling.
func requireNothingLeft(t testing.TB) {
	t.Helper()
	require.Empty(t, tagged(t), "processes left behind")
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !bytes.Contains(stat, []byte(") Z "))
}
