package redisserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/targets/process"
)

// ErrNotInstalled is returned (wrapped) when no redis-server is found.
var ErrNotInstalled = errors.New("redis-server is not installed")

// BinEnv names the environment variable that, when set, is the path of the
// redis-server to run.
const BinEnv = "IDEMCHECK_REDIS_SERVER"

// Find returns the path of redis-server: $IDEMCHECK_REDIS_SERVER when set,
// else the one on PATH.
func Find() (string, error) {
	if p, ok := os.LookupEnv(BinEnv); ok {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
		return "", fmt.Errorf("%w: $%s (%s) is not an executable file", ErrNotInstalled, BinEnv, p)
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("%w: no redis-server on PATH (Debian: apt-get install redis-server)", ErrNotInstalled)
	}
	return p, nil
}

// Server is a running redis-server.
type Server struct {
	// Port is its TCP port on 127.0.0.1.
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}

	stopOnce sync.Once
	stopErr  error
}

// Start starts a server and returns once it answers PING.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "idemcheck-redis-")
	if err != nil {
		return nil, err
	}
	port, err := process.FreePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{Port: port, dir: dir, done: make(chan struct{})}
	s.cmd = exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--logfile", filepath.Join(dir, "redis.log"), "--save", "", "--appendonly", "no",
		"--protected-mode", "yes", "--daemonize", "no")
	s.cmd.Dir = dir
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s.cmd.WaitDelay = time.Second
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	if err := s.awaitReady(ctx, 30*time.Second); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// awaitReady waits until the server answers PING with PONG.
func (s *Server) awaitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		err := ping(ctx, s.Addr())
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("redis-server exited before it was ready: %s", s.Output())
		case <-ctx.Done():
			return fmt.Errorf("redis-server not ready after %s: %v: %s", limit, err, s.Output())
		case <-tick.C:
		}
	}
}

// ping sends PING to addr and expects +PONG.
func ping(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Addr returns the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// URL returns the URL of database db on the server.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr(), db) }

// Output returns the end of the server's log.
func (s *Server) Output() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	b = bytes.TrimSpace(b)
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return string(b)
}

// Stop shuts the server down (SIGTERM, then SIGKILL after 10s) and removes
// its directory.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.cmd.Process != nil {
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
				<-s.done
				s.stopErr = fmt.Errorf("redis-server did not stop within 10s of SIGTERM; killed")
			}
		}
		if err := os.RemoveAll(s.dir); err != nil && s.stopErr == nil {
			s.stopErr = err
		}
	})
	return s.stopErr
}

// Must starts a server for the test and stops it when the test ends. It
// skips the test, saying why, when redis-server is not installed.
func Must(tb testing.TB) *Server {
	tb.Helper()
	if _, err := Find(); err != nil {
		tb.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Start(ctx)
	if err != nil {
		tb.Fatalf("starting Redis: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("stopping Redis: %v", err)
		}
	})
	return s
}
