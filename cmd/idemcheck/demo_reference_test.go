package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/reference/tools"
)

// TestDemoReferenceBuiltFromTheSource: from a checkout with the go
// command, the demo starts its reference targets from the small program,
// and each command-line tool and MCP server from a program that carries it
// alone, all built into the user's cache directory and linked again only when
// the source changed; without the go command, from this binary, saying
// why.
func TestDemoReferenceBuiltFromTheSource(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to build the reference program")
	}
	saved := referenceProgram
	referenceProgram = nil
	t.Cleanup(func() { referenceProgram = saved })
	// The go command's own cache stays where it is (it defaults to one
	// under the user's cache directory, which the test moves).
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	progs, note, cleanup, err := demoReference(ctx, nil)
	require.NoError(t, err)
	cleanup()
	assert.True(t, strings.HasPrefix(progs.Exe, filepath.Join(cache, "idemcheck")), "kept in the cache: %s", progs.Exe)
	root, _ := sourceRoot()
	src, err := os.ReadFile(filepath.Join(progs.Tools, sourceFile))
	require.NoError(t, err)
	assert.Equal(t, root, string(src), "the checkout the programs come from, for a later demo to tell it is gone")
	assert.Equal(t, filepath.Dir(progs.Exe), progs.Tools, "the tools' programs beside it")
	for _, name := range tools.Names() {
		exe := filepath.Join(progs.Tools, name)
		out, _ := exec.Command(exe, "__example", name, "--help").CombinedOutput() // some exit 2 after their usage
		assert.NotContains(t, string(out), "unknown reference target")
		assert.Contains(t, string(out), name, "%s runs %s, with the reference program's command line", exe, name)
		out, _ = exec.Command(exe, name, "--help").CombinedOutput()
		assert.Contains(t, string(out), name, "%s runs %s without the subcommand too", exe, name)
		out, err = exec.Command(exe, "__example", "webhooks", "--help").CombinedOutput()
		assert.Error(t, err, "%s carries only %s", exe, name)
		assert.Contains(t, string(out), `unknown reference target "webhooks": expected one of `+name+"\n")
	}
	out, err := exec.Command(progs.Exe, "__example", "ordertool", "--help").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "create-order", "the reference program runs the command-line tools too")
	assert.Contains(t, note, "reference targets started from programs built from this checkout, kept in "+progs.Tools+" (ready in ")
	out, err = exec.Command(progs.Exe, "__example", "shop", "--help").CombinedOutput()
	assert.NoError(t, err, "%s", out)

	// A program an earlier version of the demo built there is removed;
	// whatever else is there stays (another version's demo may be
	// starting its targets from it).
	stale := filepath.Join(progs.Tools, "tools")
	require.NoError(t, os.WriteFile(stale, []byte("old"), 0o700))
	other := filepath.Join(progs.Tools, "another-program")
	require.NoError(t, os.WriteFile(other, []byte("other"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(progs.Tools, durationsFile), []byte("{}"), 0o600))
	again, _, cleanup, err := demoReference(ctx, nil)
	require.NoError(t, err)
	cleanup()
	assert.Equal(t, progs, again, "the same programs, from the cache")
	assert.NoFileExists(t, stale)
	for _, kept := range []string{progs.Exe, other, filepath.Join(progs.Tools, durationsFile), filepath.Join(progs.Tools, "lock")} {
		assert.FileExists(t, kept)
	}

	t.Setenv("PATH", "")
	self, note, cleanup, err := demoReference(ctx, nil)
	require.NoError(t, err)
	cleanup()
	me, _ := os.Executable()
	assert.Equal(t, me, self.Exe)
	assert.Empty(t, self.Tools, "this binary starts every reference target")
	assert.Contains(t, note, "started from this binary (no go command")
}

// TestPruneOrphansRemovesOnlyProgramsOfCheckoutsThatAreGone: a directory
// of reference programs is removed when the checkout it names is gone and
// its programs are more than a day old, and no demo holds its lock; one
// whose checkout is there, that names none, that is recent, that another
// demo holds, or that is the demo's own, stays.
func TestPruneOrphansRemovesOnlyProgramsOfCheckoutsThatAreGone(t *testing.T) {
	base := t.TempDir()
	checkout := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module x\n"), 0o600))
	gone := filepath.Join(t.TempDir(), "deleted-checkout")
	now := time.Now()
	old := now.Add(-2 * orphanAge)
	mk := func(name, source string, linked time.Time) string {
		dir := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "lock"), nil, 0o600))
		prog := filepath.Join(dir, "reference")
		require.NoError(t, os.WriteFile(prog, []byte("program"), 0o700))
		require.NoError(t, os.Chtimes(prog, linked, linked))
		if source != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, sourceFile), []byte(source), 0o600))
		}
		return dir
	}
	orphan := mk("reference-orphan", gone, old)
	present := mk("reference-present", checkout, old)
	unnamed := mk("reference-unnamed", "", old)
	recent := mk("reference-recent", gone, now.Add(-time.Hour))
	held := mk("reference-held", gone, old)
	own := mk("reference-own", gone, old)
	other := mk("not-ours", gone, old)
	lock, err := os.OpenFile(filepath.Join(held, "lock"), os.O_RDWR, 0)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))

	pruneOrphans(base, own, now)

	assert.NoDirExists(t, orphan)
	for _, kept := range []string{present, unnamed, recent, held, own, other} {
		assert.DirExists(t, kept)
	}
}

// TestRunSayingSaysWhenSlow: a build still running after its notice time
// is announced, once, and its output is still returned; one that ends
// before it is not announced.
func TestRunSayingSaysWhenSlow(t *testing.T) {
	t.Parallel()
	// cat runs until its input closes, which only the notice does.
	cmd := exec.Command("sh", "-c", "cat; echo built")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	said := 0
	out, err := runSaying(cmd, time.Millisecond, func() { said++; _ = in.Close() })
	require.NoError(t, err)
	assert.Equal(t, 1, said)
	assert.Equal(t, "built\n", string(out))

	said = 0
	out, err = runSaying(exec.Command("sh", "-c", "echo quick"), time.Hour, func() { said++ })
	require.NoError(t, err)
	assert.Zero(t, said, "a quick build is not announced")
	assert.Equal(t, "quick\n", string(out))

	_, err = runSaying(exec.Command("sh", "-c", "echo broken >&2; exit 3"), time.Hour, nil)
	assert.Error(t, err)
}
