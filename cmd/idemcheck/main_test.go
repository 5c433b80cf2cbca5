package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/internal/interrupt"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/internal/testpar"
	"github.com/idemcheck/idemcheck/targets/process"
)

// testTag is inherited by every process the tests start (through the
// environment), so that leftovers can be found in /proc.
var testTag = fmt.Sprintf("IDEMCHECK_TEST_TAG=%016x", rand.Uint64())

// TestMain lets the test binary act as the reference targets (the hidden
// subcommand) and as the idemcheck program itself (IDEMCHECK_TEST_MAIN=1).
func TestMain(m *testing.M) {
	if os.Getenv("IDEMCHECK_TEST_MAIN") != "1" {
		// Only the program itself catches signals from its start: the
		// tests, the reference targets and the hostile ones keep Go's.
		interrupt.Release()
	}
	if len(os.Args) > 1 && os.Args[1] == examples.Subcommand {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := examples.Main(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if mode := os.Getenv(hostileEnv); mode != "" {
		os.Exit(hostile(mode, os.Args[1:]))
	}
	if os.Getenv("IDEMCHECK_TEST_MAIN") == "1" {
		if len(os.Args) > 1 && os.Args[1] == guardSubcommand {
			os.Exit(guardMain(os.Args[2:]))
		}
		if len(os.Args) > 1 && os.Args[1] == ordersDBProbe {
			os.Exit(guarded(os.TempDir(), probeOrdersDB))
		}
		if len(os.Args) > 1 && os.Args[1] == privateProbe {
			os.Exit(guarded(os.TempDir(), probePrivate))
		}
		if os.Getenv(signalFirstEnv) == "1" {
			// As if a signal came while the program initialised: it is
			// sent once this says so, before programMain starts.
			os.Stderr.WriteString("ready\n")
			select {
			case <-interrupt.Notified():
			case <-time.After(time.Minute):
			}
		}
		os.Exit(programMain(os.Args[1:]))
	}
	kv := strings.SplitN(testTag, "=", 2)
	os.Setenv(kv[0], kv[1])
	// The demo's reference targets are the reference program, built
	// without the race detector (refexe); where this binary is run again
	// as one, built with -race, it would sleep a second at each exit. The
	// children inherit this.
	referenceProgram = refexe.Program
	// The demos the tests run in this process share it with the other
	// tests: its memory is not the demo's to limit (TestDemoMemoryLimit).
	demoMemoryLimit = 0
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	// A target is given only the environment its configuration and
	// process.Inherited say: these two are passed on as well.
	process.PassOn(kv[0], "GORACE")
	// The parallel tests, which run after the others, wait on their
	// targets (a rate limit, a database) more than they work.
	testpar.AtLeast(4)
	code := m.Run()
	refexe.Remove()
	os.Exit(code)
}

// runCLI runs the program in-process and returns its exit code and output.
func runCLI(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// tagged returns the pids of live processes carrying this test binary's tag.
func tagged(t *testing.T) []int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	require.NoError(t, err)
	var pids []int
	self := os.Getpid()
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscan(filepath.Base(d), &pid); err != nil || pid == self {
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

// requireNoTargetsLeft waits, with a deadline, until no tagged process but
// those in keep remains.
func requireNoTargetsLeft(t *testing.T, keep ...int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := without(tagged(t), keep)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind: %v", left)
		}
		time.Sleep(20 * time.Millisecond) // polling /proc: there is no event to wait on
	}
}

func without(pids, keep []int) []int {
	var out []int
	for _, p := range pids {
		skip := false
		for _, k := range keep {
			if p == k {
				skip = true
			}
		}
		if !skip {
			out = append(out, p)
		}
	}
	return out
}
