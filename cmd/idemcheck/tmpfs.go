package main

import (
	"os"
	"syscall"
)

// memTmpfs is the memory file system the commands that run targets (run,
// demo, replay) keep their temporary files in when TMPDIR does not say
// where (see runDirBaseFor): the targets' state directories and their
// own TMPDIR, the files command-line tools and MCP servers write at every
// call, a PostgreSQL server's data directory and databases. Creating and
// removing thousands of small files costs a disk file system (ext4's
// inode allocation) several seconds of processor time in a demo, and a
// target's fsync waits on the disk; a memory one, little. A crash fault
// kills a process, not the machine, so what a target wrote survives it
// on either. "" for none.
var memTmpfs = "/dev/shm"

// memTmpfsRoom is the free space memTmpfs must have to be used: the
// demo's temporary files take ~130 MB at most (most of it PostgreSQL's),
// which then take memory instead of disk until the run ends; a target
// that keeps more in its state directory is run with TMPDIR set to a
// disk directory (idemcheck help says so).
const memTmpfsRoom = 1 << 30

// tmpfsMagic is a tmpfs file system's type, as statfs(2) gives it.
const tmpfsMagic = 0x01021994

// runsTargets are the commands that run targets.
var runsTargets = map[string]bool{"run": true, "demo": true, "replay": true}

// runDirBaseFor returns the directory the run directory of the program
// started with args is made in (see makeRunDir): for a command that runs
// targets, when getenv's TMPDIR is unset, memTmpfs where it is a memory
// file system that this process may write to with memTmpfsRoom free;
// otherwise the usual temporary directory.
func runDirBaseFor(args []string, getenv func(string) string) string {
	if len(args) > 0 && runsTargets[args[0]] && getenv("TMPDIR") == "" && memTmpfs != "" && inMemoryWithRoom(memTmpfs, memTmpfsRoom) {
		return memTmpfs
	}
	return os.TempDir()
}

// inMemoryWithRoom says whether dir is on a memory file system (tmpfs)
// that programs may be run from, may be written to, and has room bytes
// free.
func inMemoryWithRoom(dir string, room uint64) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || !usableMemFS(st, room) {
		return false
	}
	const wOK = 2 // access(2)'s W_OK
	return syscall.Access(dir, wOK) == nil
}

// stNoexec is statfs(2)'s flag of a file system mounted noexec.
const stNoexec = 0x8

// usableMemFS says whether the file system st describes is a tmpfs with
// room bytes free that programs may be run from: a target's TMPDIR holds
// what `go run` builds, and a hardened machine often mounts /dev/shm
// noexec.
func usableMemFS(st syscall.Statfs_t, room uint64) bool {
	return st.Type == tmpfsMagic && st.Flags&stNoexec == 0 && st.Bavail*uint64(st.Bsize) >= room
}
