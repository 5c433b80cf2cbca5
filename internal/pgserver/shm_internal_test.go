package pgserver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSharedMemoryLivesInTheDataDirectory: the server keeps its dynamic
// shared memory in files of its data directory, not in /dev/shm, so a
// server killed with idemcheck (SIGKILL, which it cannot clean up after)
// leaves nothing behind once its directory is removed.
func TestSharedMemoryLivesInTheDataDirectory(t *testing.T) {
	if _, err := Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := Start(ctx)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Stop()) }()
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", s.cmd.Process.Pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(maps), "\n") {
		require.NotContains(t, line, "/dev/shm/PostgreSQL", "a segment in /dev/shm outlives a killed server")
	}
	require.Contains(t, string(maps), "pg_dynshmem", "the segments are files of the data directory")
}
