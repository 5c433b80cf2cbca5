package interrupt_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/interrupt"
)

// TestMain lets the test binary be a program that imports the package
// and gets a SIGTERM before it asks for a Context.
func TestMain(m *testing.M) {
	if os.Getenv("INTERRUPT_TEST_CHILD") == "released" {
		interrupt.Release()
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute) // until the signal ends it
		os.Exit(3)
	}
	if os.Getenv("INTERRUPT_TEST_CHILD") == "1" {
		os.Stdout.WriteString("ready\n")
		select {
		case <-interrupt.Notified():
		case <-time.After(time.Minute):
			os.Exit(3)
		}
		ctx, cancel := interrupt.Context(context.Background())
		defer cancel()
		if ctx.Err() == nil {
			os.Exit(4) // the signal came first: the context must say so at once
		}
		os.Exit(130)
	}
	os.Exit(m.Run())
}

// TestSignalBeforeContext: a SIGTERM that arrives before the program asks
// for a Context does not kill it; the Context it then gets is cancelled
// already when Context returns (a command that ends at once, version,
// must still be told).
// Released, the program gets the default action: killed by the signal.
func TestSignalBeforeContext(t *testing.T) {
	ee := sigterm(t, "1")
	assert.Equal(t, 130, ee.ExitCode(), "exited by itself, not killed by the signal")

	ee = sigterm(t, "released")
	ws := ee.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGTERM, "released: killed by SIGTERM, got %v", ee)
}

// sigterm runs the test binary as child mode, sends it SIGTERM once it is
// ready and returns how it ended.
func sigterm(t *testing.T, mode string) *exec.ExitError {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "INTERRUPT_TEST_CHILD="+mode)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	buf := make([]byte, 6)
	_, err = io.ReadFull(out, buf)
	require.NoError(t, err)
	require.Equal(t, "ready\n", string(buf))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	return ee
}

// TestContextEndsWithItsParent: without a signal, Context follows its
// parent.
func TestContextEndsWithItsParent(t *testing.T) {
	parent, stop := context.WithCancel(context.Background())
	ctx, cancel := interrupt.Context(parent)
	defer cancel()
	stop()
	<-ctx.Done()
	select {
	case <-interrupt.Notified():
		t.Fatal("no signal was sent to this process")
	default:
	}
}
