package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/targets/process"
)

// identityOf is pid's process.OwnerID-style identity, "PID.STARTTIME".
func identityOf(t *testing.T, pid int) string {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// The fields after the command name, which is in parentheses.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return fmt.Sprintf("%d.%s", pid, fields[19]) // field 22: starttime
}

// TestSweepKeepsLiveRunsAndRemovesDeadOnes: the sweep removes the run
// directories whose owner is gone, however their targets left them, and
// keeps those of live processes, this one's included, and one too young
// to have its owner record yet.
func TestSweepKeepsLiveRunsAndRemovesDeadOnes(t *testing.T) {
	base := t.TempDir()
	parent := identityOf(t, os.Getppid())
	require.True(t, process.OwnerAlive(parent), "the identity is read as the sweep reads it")
	live, _, err := makeRunDir(base, parent)
	require.NoError(t, err)
	self, _, err := makeRunDir(base, process.OwnerID())
	require.NoError(t, err)
	deadStart, deadTmp, err := makeRunDir(base, fmt.Sprintf("%d.1", os.Getppid())) // a reused pid
	require.NoError(t, err)
	deadPid, _, err := makeRunDir(base, "999999999.1")
	require.NoError(t, err)
	// Its target left an unwritable directory behind, and an owner record
	// of its own that names a live process.
	locked := filepath.Join(deadTmp, "locked")
	require.NoError(t, os.MkdirAll(filepath.Join(locked, "in"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(locked, "in", "f"), []byte("x"), 0o600))
	require.NoError(t, os.Chmod(locked, 0o500))
	require.NoError(t, os.WriteFile(filepath.Join(deadTmp, ownerFile), []byte(parent), 0o600))
	young := filepath.Join(base, runDirPrefix+"young")
	require.NoError(t, os.Mkdir(young, 0o700))
	old := filepath.Join(base, runDirPrefix+"old")
	require.NoError(t, os.Mkdir(old, 0o700))
	long := time.Now().Add(-2 * youngRunDir)
	require.NoError(t, os.Chtimes(old, long, long))

	assert.Equal(t, 3, sweepRunDirs(base))
	for _, d := range []string{live, self, young} {
		assert.DirExists(t, d, "kept")
	}
	for _, d := range []string{deadStart, deadPid, old} {
		assert.NoDirExists(t, d, "removed")
	}
}

// TestRunDirKeepsTheOwnerRecordFromTheTarget: what a target is handed as
// TMPDIR is a directory below the run directory, whose owner record it
// does not hold, in a run directory that no one may write to.
func TestRunDirKeepsTheOwnerRecordFromTheTarget(t *testing.T) {
	dir, tmp, err := makeRunDir(t.TempDir(), process.OwnerID())
	require.NoError(t, err)
	defer removeRunDir(dir)
	assert.Equal(t, dir, filepath.Dir(tmp))
	owner, err := os.ReadFile(filepath.Join(dir, ownerFile))
	require.NoError(t, err)
	assert.Equal(t, process.OwnerID(), string(owner))
	assert.NoFileExists(t, filepath.Join(tmp, ownerFile))
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o511), fi.Mode().Perm(), "read-only but for idemcheck's removal")
	fi, err = os.Stat(tmp)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o711), fi.Mode().Perm())
}
