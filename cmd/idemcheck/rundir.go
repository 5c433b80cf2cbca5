package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/targets/process"
)

// A run directory holds every temporary file of one idemcheck process:
//
//	$TMPDIR/idemcheck-run-XXXX/        the run directory (r-x--x--x once made)
//	$TMPDIR/idemcheck-run-XXXX/owner   process.OwnerID of the idemcheck process
//	$TMPDIR/idemcheck-run-XXXX/tmp/    the TMPDIR of idemcheck and its targets
//
// The targets are handed tmp/ only. The owner record sits beside it, in a
// directory no one may write to until idemcheck removes it, so a target
// that rewrites what is under its TMPDIR cannot make its run's directory
// look alive (kept forever) or someone else's; `idemcheck cleanup` finds
// the run directories in the directory runs create them in and removes
// those whose owner is gone.
const (
	runDirPrefix = "idemcheck-run-"
	ownerFile    = "owner"
	runTmp       = "tmp"
)

// startTempDir is the directory guarded made the run directory in (the
// TMPDIR idemcheck was started with, or, for a command that runs targets,
// a memory file system: see runDirBaseFor), once it has replaced TMPDIR
// by its own run's; "" before.
var startTempDir string

// runDirBase is the directory this process's run directory is made in:
// the TMPDIR idemcheck was started with, or a memory file system (see
// runDirBaseFor).
func runDirBase() string {
	if startTempDir != "" {
		return startTempDir
	}
	return os.TempDir()
}

// makeRunDir makes a run directory in base for owner and returns it and
// the TMPDIR inside it to hand on.
func makeRunDir(base, owner string) (dir, tmp string, err error) {
	dir, err = os.MkdirTemp(base, runDirPrefix)
	if err != nil {
		return "", "", err
	}
	tmp = filepath.Join(dir, runTmp)
	err = os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o400)
	if err == nil {
		err = os.Mkdir(tmp, 0o700)
	}
	if err == nil {
		// Others may pass through, not list: a server run as another
		// user (the demo's PostgreSQL, when idemcheck runs as root) gets
		// a directory of its own in here, which it must reach.
		err = os.Chmod(tmp, 0o711)
	}
	if err == nil {
		err = os.Chmod(dir, 0o511)
	}
	if err != nil {
		removeRunDir(dir)
		return "", "", err
	}
	return dir, tmp, nil
}

// removeRunDir removes a run directory whatever its targets left in it:
// directories they made unwritable are made writable first (symbolic
// links are not followed).
func removeRunDir(dir string) error {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil // on: remove what can be
	})
	return os.RemoveAll(dir)
}

// youngRunDir is how long a run directory without its owner record is
// taken for one being made rather than one cut short.
const youngRunDir = time.Minute

// sweepRunDirs removes the run directories in base whose owner process is
// gone (or that have no owner record and are older than youngRunDir), and
// returns how many it removed. Those of live processes, this one's
// included, are kept.
func sweepRunDirs(base string) int {
	matches, _ := filepath.Glob(filepath.Join(base, runDirPrefix+"*"))
	n := 0
	for _, d := range matches {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		owner, err := os.ReadFile(filepath.Join(d, ownerFile))
		switch {
		case err != nil && !os.IsNotExist(err):
			continue
		case err != nil && time.Since(fi.ModTime()) < youngRunDir:
			continue
		case err == nil && runDirAlive(strings.TrimSpace(string(owner))):
			continue
		}
		if removeRunDir(d) == nil {
			n++
		}
	}
	return n
}

// runDirAlive reports whether owner, a run directory's owner record, is
// this process or another that runs.
func runDirAlive(owner string) bool {
	return owner == process.OwnerID() || process.OwnerAlive(owner)
}
