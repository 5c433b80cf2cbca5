package shop_test

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// shopProcess is a shop running as a child process (this test binary, see
// TestMain), so that a test can kill it with SIGKILL at a precise point
// and start it again on the same state directory: a crash, not a graceful
// shutdown.
type shopProcess struct {
	*testShop
	cmd    *exec.Cmd
	exited chan struct{}
	output *lockedBuffer
	once   sync.Once
}

// mustStartProcess starts a shop process with profile against pay, keeping
// its state in stateDir, and waits for its ready line. It is killed at
// cleanup at the latest.
func mustStartProcess(t *testing.T, profile string, pay *payments, stateDir string) *shopProcess {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "--profile", profile, "--payments", pay.URL(), "--state", stateDir, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	ready := &readyWriter{line: make(chan string, 1)}
	p := &shopProcess{cmd: cmd, exited: make(chan struct{}), output: &lockedBuffer{}}
	cmd.Stdout = ready
	cmd.Stderr = p.output
	require.NoError(t, cmd.Start())
	go func() {
		_ = cmd.Wait() // killed: "signal: killed"
		close(p.exited)
	}()
	t.Cleanup(func() { p.kill(t) })

	select {
	case line := <-ready.line:
		base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
		require.True(t, ok, "ready line: %q", line)
		p.testShop = &testShop{url: base, client: &http.Client{Timeout: wait}}
	case <-p.exited:
		t.Fatalf("shop %s exited before ready: %s", profile, p.output)
	case <-time.After(wait):
		t.Fatalf("shop %s not ready after %v: %s", profile, wait, p.output)
	}
	return p
}

// kill SIGKILLs the process and waits until it is gone.
func (p *shopProcess) kill(t *testing.T) {
	t.Helper()
	p.once.Do(func() {
		if p.testShop != nil {
			p.client.CloseIdleConnections()
		}
		_ = p.cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(wait):
			t.Errorf("shop process %d still running %v after SIGKILL", p.cmd.Process.Pid, wait)
		}
	})
}

// readyWriter is the child's stdout: it passes on the first line.
type readyWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
	line chan string
}

func (w *readyWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if !w.sent {
		if line, _, ok := strings.Cut(w.buf.String(), "\n"); ok {
			w.sent = true
			w.line <- line
		}
	}
	return len(b), nil
}

// lockedBuffer is the child's stderr, readable while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
