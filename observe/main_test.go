package observe_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/internal/pgserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	shared.stop()
	if code == 0 {
		// Every observer, session and pool a test opened is closed by now.
		if err := goleak.Find(goleak.IgnoreCurrent()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// shared holds what several tests use and is costly to make: one
// PostgreSQL server (a database per test) and the SDK's memory server,
// built once.
var shared resources

type resources struct {
	pgOnce sync.Once
	pg     *pgserver.Server
	pgErr  error
	dbs    atomic.Int64

	memOnce sync.Once
	memDir  string
	memBin  string
	memErr  error
}

func (s *resources) stop() {
	if s.pg != nil {
		_ = s.pg.Stop()
	}
	if s.memDir != "" {
		os.RemoveAll(s.memDir)
	}
}

// postgres returns the DSN of a fresh database on the shared server, and
// a connection to it. It skips the test without PostgreSQL.
func postgres(t testing.TB) (string, *sql.DB) {
	t.Helper()
	if _, err := pgserver.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	shared.pgOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		shared.pg, shared.pgErr = pgserver.Start(ctx)
	})
	require.NoError(t, shared.pgErr, "starting PostgreSQL")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := shared.pg.CreateDatabase(ctx, fmt.Sprintf("t%d", shared.dbs.Add(1)))
	require.NoError(t, err)
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return dsn, db
}

// memoryServer returns the path of the official Go SDK's example memory
// server (a knowledge graph kept in a JSON file), built from the SDK
// version in go.mod. It skips the test when the toolchain cannot build it.
func memoryServer(t testing.TB) string {
	t.Helper()
	shared.memOnce.Do(func() {
		dir, err := os.MkdirTemp("", "idemcheck-memory-")
		if err != nil {
			shared.memErr = err
			return
		}
		shared.memDir = dir
		bin := filepath.Join(dir, "memory")
		goTool := "go" // go test puts its own toolchain first on PATH
		cmd := exec.Command(goTool, "build", "-o", bin, "github.com/modelcontextprotocol/go-sdk/examples/server/memory")
		out, err := cmd.CombinedOutput()
		if err != nil {
			shared.memErr = fmt.Errorf("go build the SDK's memory server: %v: %s", err, out)
			return
		}
		shared.memBin = bin
	})
	if shared.memErr != nil {
		t.Skipf("skipping: %v", shared.memErr)
	}
	return shared.memBin
}

// startRedis starts a real redis-server on a free loopback port, with no
// persistence, stopped when the test ends. It skips the test without
// redis-server.
func startRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("skipping: redis-server is not installed (Debian: apt-get install redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--bind", "127.0.0.1", "--port", port, "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatalf("redis-server on %s did not say it was ready within 20s", addr)
	}
	return addr
}
