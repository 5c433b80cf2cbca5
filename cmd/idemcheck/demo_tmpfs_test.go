package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoTempFilesInMemory: the demo makes its run directory (and so
// every temporary file of its targets) on a memory file system when
// TMPDIR does not say where and the memory file system has room; run,
// and a demo given TMPDIR, keep the usual temporary directory, as does a
// demo where the directory is on disk. cleanup sweeps the demo's dead
// run directories there too.
func TestDemoTempFilesInMemory(t *testing.T) {
	const shm = "/dev/shm"
	if !inMemoryWithRoom(shm, demoTmpfsRoom) {
		t.Skip(shm + " is not a memory file system with room here")
	}
	saved := demoTmpfs
	t.Cleanup(func() { demoTmpfs = saved })
	demoTmpfs = shm
	unset := func(string) string { return "" }
	assert.Equal(t, shm, runDirBaseFor([]string{"demo", "--format", "json"}, unset))
	assert.Equal(t, os.TempDir(), runDirBaseFor([]string{"run", "-c", "x.yaml"}, unset), "run keeps the usual one")
	assert.Equal(t, os.TempDir(), runDirBaseFor(nil, unset))
	assert.Equal(t, os.TempDir(), runDirBaseFor([]string{"demo"}, func(k string) string {
		if k == "TMPDIR" {
			return "/somewhere/else"
		}
		return ""
	}), "TMPDIR says where")
	assert.False(t, inMemoryWithRoom(shm, 1<<62), "not that much room")

	onDisk := t.TempDir()
	if inMemoryWithRoom(onDisk, 0) {
		t.Skip("the usual temporary directory is in memory too")
	}
	demoTmpfs = onDisk
	assert.Equal(t, os.TempDir(), runDirBaseFor([]string{"demo"}, unset), "a directory on disk is not used")

	// A dead demo's run directory under the memory file system is swept.
	demoTmpfs = t.TempDir()
	dir, _, err := makeRunDir(demoTmpfs, "999999999.1") // no such process
	require.NoError(t, err)
	_, dirs := sweep()
	assert.GreaterOrEqual(t, dirs, 1)
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "%s removed", filepath.Base(dir))
}
