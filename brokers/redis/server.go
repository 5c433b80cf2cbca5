package redis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/kit"
	"github.com/idemcheck/idemcheck/targets/process"
)

// ErrNotInstalled is returned (wrapped) when no redis-server is found.
var ErrNotInstalled = errors.New("redis-server is not installed")

// BinEnv names the environment variable that, when set, is the
// redis-server binary to run.
const BinEnv = "IDEMCHECK_REDIS_SERVER"

// Find returns the redis-server binary: $IDEMCHECK_REDIS_SERVER when set,
// else the one on PATH.
func Find() (string, error) {
	if p := os.Getenv(BinEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: $%s=%s: %v", ErrNotInstalled, BinEnv, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("%w: not on PATH (Debian: apt-get install redis-server)", ErrNotInstalled)
	}
	return p, nil
}

// startServer starts redis-server on a free loopback port with its
// working directory in dir, no persistence, and returns once it accepts
// connections. A port taken between choosing and binding is retried.
func startServer(ctx context.Context, bin, dir string) (*process.Process, int, error) {
	var lastErr error
	for range 3 {
		port, err := process.FreePort()
		if err != nil {
			return nil, 0, err
		}
		p, err := process.Start(ctx, process.Spec{
			Name: "redis-server",
			Command: []string{bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
				"--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes",
				"--unixsocket", "", "--logfile", ""},
			Dir:   dir,
			Ready: process.Ready{Addr: "127.0.0.1:" + strconv.Itoa(port), Timeout: kit.Timeout(ctx, brokers.DefaultStartTimeout)},
		})
		if err == nil {
			return p, port, nil
		}
		lastErr = err
	}
	return nil, 0, fmt.Errorf("redis: start redis-server: %w", lastErr)
}
