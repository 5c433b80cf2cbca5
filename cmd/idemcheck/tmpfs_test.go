package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetTempFilesInMemory: the commands that run targets make their
// run directory (and so every temporary file of their targets) on a
// memory file system when TMPDIR does not say where and the memory file
// system has room and lets programs run; the other commands, and one
// given TMPDIR, keep the usual temporary directory, as does one where the
// directory is on disk. cleanup sweeps the dead run directories there
// too.
func TestTargetTempFilesInMemory(t *testing.T) {
	const shm = "/dev/shm"
	if !inMemoryWithRoom(shm, memTmpfsRoom) {
		t.Skip(shm + " is not a memory file system with room here")
	}
	saved := memTmpfs
	t.Cleanup(func() { memTmpfs = saved })
	memTmpfs = shm
	unset := func(string) string { return "" }
	assert.Equal(t, shm, runDirBaseFor([]string{"demo", "--format", "json"}, unset))
	assert.Equal(t, shm, runDirBaseFor([]string{"run", "-c", "x.yaml"}, unset))
	assert.Equal(t, shm, runDirBaseFor([]string{"replay", "-c", "x.yaml", "result.json"}, unset))
	assert.Equal(t, os.TempDir(), runDirBaseFor([]string{"report", "result.json"}, unset), "report runs no target")
	assert.Equal(t, os.TempDir(), runDirBaseFor(nil, unset))
	assert.Equal(t, os.TempDir(), runDirBaseFor([]string{"run"}, func(k string) string {
		if k == "TMPDIR" {
			return "/somewhere/else"
		}
		return ""
	}), "TMPDIR says where")
	assert.False(t, inMemoryWithRoom(shm, 1<<62), "not that much room")
	mem := syscall.Statfs_t{Type: tmpfsMagic, Bsize: 4096, Bavail: 1 << 20}
	assert.True(t, usableMemFS(mem, memTmpfsRoom))
	noexec := mem
	noexec.Flags |= stNoexec
	assert.False(t, usableMemFS(noexec, memTmpfsRoom), "programs cannot run from a file system mounted noexec")
	disk := mem
	disk.Type = 0xef53 // ext4
	assert.False(t, usableMemFS(disk, 0))

	onDisk := t.TempDir()
	if inMemoryWithRoom(onDisk, 0) {
		t.Skip("the usual temporary directory is in memory too")
	}
	memTmpfs = onDisk
	assert.Equal(t, os.TempDir(), runDirBaseFor([]string{"demo"}, unset), "a directory on disk is not used")

	// A dead run's directory under the memory file system is swept.
	memTmpfs = t.TempDir()
	dir, _, err := makeRunDir(memTmpfs, "999999999.1") // no such process
	require.NoError(t, err)
	_, dirs := sweep()
	assert.GreaterOrEqual(t, dirs, 1)
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "%s removed", filepath.Base(dir))
}
