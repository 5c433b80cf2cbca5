package reports_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

// TestLockDirRefusesASecondHolder: while one holds a report directory,
// another is refused with a message that names the holder; once released,
// the directory can be taken again, and the lock file is gone.
func TestLockDirRefusesASecondHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	unlock, err := reports.LockDir(dir)
	require.NoError(t, err)

	_, err = reports.LockDir(dir)
	var le *reports.LockedError
	require.True(t, errors.As(err, &le), "got %v", err)
	assert.Contains(t, err.Error(), "in use by another idemcheck (pid ")
	assert.Contains(t, err.Error(), "another --out")

	unlock()
	assert.NoFileExists(t, filepath.Join(dir, reports.LockFile))
	unlock, err = reports.LockDir(dir)
	require.NoError(t, err, "released: free again")
	unlock()
}

// TestLockDirTakesOverAStaleLock: a lock file left by a process that is
// gone (its kernel lock died with it) is taken over.
func TestLockDirTakesOverAStaleLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, reports.LockFile)
	require.NoError(t, os.WriteFile(path, []byte("pid 999999999 since 2001-01-01T00:00:00Z\n"), 0o644))
	unlock, err := reports.LockDir(dir)
	require.NoError(t, err)
	defer unlock()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), fmt.Sprintf("pid %d since", os.Getpid()), "the new holder's")
}
