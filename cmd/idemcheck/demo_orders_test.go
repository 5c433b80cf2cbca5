package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/pgserver"
)

// TestDemoFallsBackToSQLite: without PostgreSQL the demo's orders service
// keeps its orders in SQLite, and the demo says so.
func TestDemoFallsBackToSQLite(t *testing.T) {
	t.Setenv(pgserver.BinEnv, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	db, stop := demoOrdersDB(ctx, false, &stderr)
	defer stop()
	assert.Equal(t, "sqlite", db.Kind)
	assert.Contains(t, stderr.String(), "PostgreSQL is not installed")
	assert.Contains(t, stderr.String(), "the orders service keeps its orders in SQLite instead")
}

// ordersDBProbe, as the first argument of this test binary run as the
// program, makes it start the demo's orders database inside the program's
// run directory, print its kind and stop it.
const ordersDBProbe = "__orders-db"

func probeOrdersDB(ctx context.Context) int {
	db, stop := demoOrdersDB(ctx, true, os.Stderr)
	stop()
	fmt.Println(db.Kind)
	return 0
}

// TestDemoKeepsOrdersInPostgres: where PostgreSQL is installed, the demo's
// orders service keeps its orders there, even when idemcheck runs as root
// and PostgreSQL as another user who must reach the program's run
// directory.
func TestDemoKeepsOrdersInPostgres(t *testing.T) {
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	// The program's TMPDIR is reachable by others, as /tmp is; the test's
	// own temporary directories are not.
	tmp := t.TempDir()
	for _, d := range []string{filepath.Dir(tmp), tmp} {
		require.NoError(t, os.Chmod(d, 0o711))
	}
	cmd := exec.Command(os.Args[0], ordersDBProbe)
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", "TMPDIR="+tmp)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	watchdog := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Equal(t, "postgres", strings.TrimSpace(stdout.String()), stderr.String())
	assert.Empty(t, stderr.String())
}
