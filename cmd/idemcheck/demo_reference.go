package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/examples/reference/tools"
)

// referencePkg is the program that carries the reference targets and
// nothing of the harness (package examples/reference).
const referencePkg = "./examples/reference/cmd/reference"

// toolsDir holds, for each reference target whose processes start most
// often — the command-line tools and the MCP servers, started once per
// call or per session, and the shop, restarted by crash faults and
// trials (package examples/reference/tools) — a program that carries it
// alone, in the directory named after it.
const toolsDir = "./examples/reference/cmd/"

// toolPkgs are the packages of those programs.
func toolPkgs() []string {
	var pkgs []string
	for _, name := range tools.Names() {
		pkgs = append(pkgs, toolsDir+name)
	}
	return pkgs
}

// referenceBuildLimit bounds the build of the reference program.
const referenceBuildLimit = 3 * time.Minute

// demoReference returns the programs the demo starts its reference
// targets from, what to say of them, and what removes them; slow, if not
// nil, is called when their build is still running after buildNotice.
//
// This binary carries the reference targets (the hidden subcommand), but a
// start of it initialises the whole of idemcheck first, and every call of
// a reference command-line tool, every MCP session over stdio and every
// restart of a reference server is a start. So where the source this
// binary was built from is at hand with the go command — a go run or go
// build in a checkout — the demo builds the program that carries only the
// reference targets (a link of packages the build has just compiled) and
// starts them from it; elsewhere it starts them from itself. Beside it,
// the same build links a program for each command-line tool and MCP
// server, and for the shop, carrying it alone (toolPkgs): their processes
// are most of those the demo starts, and a start of one initialises fewer
// packages still.
// They are built as idemcheck is (with cgo where it was): static programs
// would start ~1 ms sooner, but would have the go command compile most of
// their dependencies again, ~50 s on a first demo. They are kept in the
// user's cache directory: the go command links them again only when the
// source changed.
func demoReference(ctx context.Context, slow func()) (progs examples.Programs, note string, cleanup func(), err error) {
	cleanup = func() {}
	if referenceProgram != nil {
		progs.Exe, err = referenceProgram() // the tests give their own
		return progs, "", cleanup, err
	}
	self, err := os.Executable()
	if err != nil {
		return progs, "", cleanup, err
	}
	progs.Exe = self
	root, why := sourceRoot()
	if why != "" {
		return progs, "reference targets started from this binary (" + why + ")", cleanup, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return progs, "reference targets started from this binary (no go command to build the smaller program that carries only them)", cleanup, nil
	}
	dir, unlock, err := referenceCache(root)
	if err != nil {
		return progs, "reference targets started from this binary (" + err.Error() + ")", cleanup, nil
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, referenceBuildLimit)
	defer cancel()
	start := time.Now()
	// The go command links again only when the source changed since the
	// programs in the cache were built; given a directory, it writes each
	// program there under its package's name.
	pkgs := append([]string{referencePkg}, toolPkgs()...)
	cmd := exec.CommandContext(ctx, goTool, append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	cmd.WaitDelay = time.Second
	if out, err := runSaying(cmd, buildNotice, slow); err != nil {
		return progs, fmt.Sprintf("reference targets started from this binary (go build %s in %s failed: %v: %s)",
			strings.Join(pkgs, " "), root, err, strings.TrimSpace(lastLine(out))), cleanup, nil
	}
	removeStale(dir)
	progs = examples.Programs{Exe: filepath.Join(dir, path.Base(referencePkg)), Tools: dir}
	return progs, fmt.Sprintf("reference targets started from programs built from this checkout, kept in %s (ready in %s)",
		dir, time.Since(start).Round(100*time.Millisecond)), cleanup, nil
}

// buildNotice is how long the reference programs' build runs before the
// demo says that it is building them: a first demo compiles them, for a
// minute or more, and would otherwise print nothing meanwhile.
const buildNotice = 5 * time.Second

// runSaying runs cmd and returns what it printed, calling slow (from this
// goroutine) once it has run for after.
func runSaying(cmd *exec.Cmd, after time.Duration, slow func()) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(after)
	defer timer.Stop()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-timer.C:
		if slow != nil {
			slow()
		}
	}
	err := <-done
	return out.Bytes(), err
}

// stalePrograms are the programs an earlier version of the demo built in
// the cache directory that this one no longer builds: "tools", which
// carried every command-line tool and MCP server before each got a
// program of its own.
var stalePrograms = []string{"tools"}

// removeStale removes stalePrograms from the cache directory dir, and
// nothing else: a demo of another version may be starting its targets
// from the programs it finds there.
func removeStale(dir string) {
	for _, name := range stalePrograms {
		p := filepath.Join(dir, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			_ = os.Remove(p)
		}
	}
}

// referenceCache returns the directory where the reference programs built
// from the source at root are kept between demos — in the user's cache
// directory, one per checkout — locked against another demo building them
// at the same time until unlock is called.
func referenceCache(root string) (dir string, unlock func(), err error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256([]byte(root))
	dir = filepath.Join(base, "idemcheck", "reference-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, err
	}
	// Which checkout the programs are built from, so that a later demo can
	// tell that it is gone (pruneOrphans).
	if old, err := os.ReadFile(filepath.Join(dir, sourceFile)); err != nil || string(old) != root {
		_ = os.WriteFile(filepath.Join(dir, sourceFile), []byte(root), 0o600)
	}
	pruneOrphans(filepath.Dir(dir), dir, time.Now())
	return dir, func() { lock.Close() }, nil
}

// sourceFile is the file, in a directory of reference programs, that
// holds the path of the checkout they were built from.
const sourceFile = "source"

// orphanAge is how long the programs of a checkout that is gone are kept:
// a demo started from that checkout before it went may still be running.
const orphanAge = 24 * time.Hour

// pruneOrphans removes, from base, the directories of reference programs
// (other than own) built from a checkout that no longer exists, whose
// programs were last linked more than orphanAge before now: every clone
// or moved checkout gets a directory of ~110 MB, which nothing else would
// remove. A directory that does not say where its programs came from, or
// whose lock another demo holds, is left alone.
func pruneOrphans(base, own string, now time.Time) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		dir := filepath.Join(base, e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "reference-") || dir == own {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, sourceFile))
		if err != nil || len(src) == 0 || !filepath.IsAbs(string(src)) {
			continue
		}
		if _, err := os.Stat(filepath.Join(string(src), "go.mod")); !errors.Is(err, fs.ErrNotExist) {
			continue // the checkout is there, or cannot be told gone
		}
		if fi, err := os.Stat(filepath.Join(dir, path.Base(referencePkg))); err == nil && now.Sub(fi.ModTime()) < orphanAge {
			continue
		}
		lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.RemoveAll(dir)
		}
		lock.Close()
	}
}

// sourceRoot returns the root of the module this binary was compiled from,
// when its source is still where the compiler read it (not a -trimpath
// build, not another machine's): the directory holding this file's
// package's module, whose go.mod names idemcheck's module. Otherwise it
// says why not.
func sourceRoot() (string, string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", "built without the paths of its source"
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // cmd/idemcheck/this.go
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module "+modulePath+"\n")) {
		return "", "the source it was built from is not at hand"
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(referencePkg))); err != nil {
		return "", "the source it was built from is not at hand"
	}
	return root, ""
}

// lastLine is the last non-empty line of out.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}
