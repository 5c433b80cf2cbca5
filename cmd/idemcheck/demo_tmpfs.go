package main

import (
	"os"
	"syscall"
)

// demoTmpfs is the memory file system the demo keeps its temporary files
// in when TMPDIR does not say where (see runDirBaseFor): its PostgreSQL
// server's data directory and databases, its targets' state directories,
// the files its command-line tools and MCP servers write at every call.
// Creating and removing thousands of small files costs a disk file system
// (ext4's inode allocation) several seconds of processor time in a demo;
// a memory one, little. "" for none.
var demoTmpfs = "/dev/shm"

// demoTmpfsRoom is the free space demoTmpfs must have for the demo to
// use it: the demo's temporary files take ~130 MB at most (most of it
// PostgreSQL's), which then take memory instead of disk until it ends.
const demoTmpfsRoom = 1 << 30

// tmpfsMagic is a tmpfs file system's type, as statfs(2) gives it.
const tmpfsMagic = 0x01021994

// runDirBaseFor returns the directory the run directory of the program
// started with args is made in (see makeRunDir): for the demo, when
// getenv's TMPDIR is unset, demoTmpfs where it is a memory file system
// that this process may write to with demoTmpfsRoom free; otherwise the
// usual temporary directory.
func runDirBaseFor(args []string, getenv func(string) string) string {
	if len(args) > 0 && args[0] == "demo" && getenv("TMPDIR") == "" && demoTmpfs != "" && inMemoryWithRoom(demoTmpfs, demoTmpfsRoom) {
		return demoTmpfs
	}
	return os.TempDir()
}

// inMemoryWithRoom says whether dir is on a memory file system (tmpfs),
// may be written to, and has room bytes free.
func inMemoryWithRoom(dir string, room uint64) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != tmpfsMagic {
		return false
	}
	const wOK = 2 // access(2)'s W_OK
	return st.Bavail*uint64(st.Bsize) >= room && syscall.Access(dir, wOK) == nil
}
