package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockFile is the lock an idemcheck run holds on its report directory
// (--out) while it runs: it holds the owner's pid and start. The lock is
// the kernel's (flock), so it dies with its process: a lock file left by
// a process that is gone is taken over.
const LockFile = ".idemcheck.lock"

// LockedError says that another process holds a report directory.
type LockedError struct {
	Dir string
	// Owner is what the holder wrote: "pid N since TIME".
	Owner string
}

func (e *LockedError) Error() string {
	owner := e.Owner
	if owner == "" {
		owner = "a process that has not said which yet"
	}
	return fmt.Sprintf("%s is in use by another idemcheck (%s): two runs on one --out would overwrite each other's reports and saved failing trials; wait for it to finish, or give this one another --out", e.Dir, owner)
}

// LockDir takes the lock of dir (made if need be) for this process and
// returns the function that releases it, or a *LockedError when another
// process holds it. The lock file is removed on release.
func LockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b := make([]byte, 256)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Dir: dir, Owner: strings.TrimSpace(string(b[:n]))}
			}
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		// The holder before may have removed the file between our open
		// and our lock: then the lock is on a file no one else will
		// open, and the one at path is to be taken afresh.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close()
			continue
		}
		owner := fmt.Sprintf("pid %d since %s\n", os.Getpid(), time.Now().Format(time.RFC3339))
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(owner), 0)
		}
		return func() {
			_ = os.Remove(path) // while still held: the next holder checks
			f.Close()
		}, nil
	}
	return nil, fmt.Errorf("locking %s: its lock file keeps being replaced; is something else removing %s?", dir, path)
}
