package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

// signalFirstEnv makes the program (IDEMCHECK_TEST_MAIN=1) say "ready" and
// wait for a signal before programMain starts: as if the signal came while
// its packages were being initialised.
const signalFirstEnv = "IDEMCHECK_TEST_SIGNAL_FIRST"

// TestSignalAtStartIsAnInterruption: a SIGTERM that arrives before the
// program's own handling is set up still ends it as an interruption (exit
// 130, having swept), not as a process killed by the signal; so for a
// command that would never look at the signal (version), and for one that
// reads its input (report).
func TestSignalAtStartIsAnInterruption(t *testing.T) {
	result := writeResult(t, t.TempDir(), "result.json", fixtureResult(t, "mismatch"))
	for _, args := range [][]string{{"version"}, {"report", "--quiet", "--min-score", "2", result}} {
		t.Run(args[0], func(t *testing.T) {
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", signalFirstEnv+"=1", "TMPDIR="+t.TempDir())
			cmd.WaitDelay = 10 * time.Second
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			ready := make([]byte, 6)
			_, err = io.ReadFull(stderr, ready)
			require.NoError(t, err)
			require.Equal(t, "ready\n", string(ready))
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			rest, _ := io.ReadAll(stderr)
			err = cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "exit 0 is no interruption; it said:\n%s", rest)
			assert.Equal(t, exitInterrupted, ee.ExitCode(), "%v; it said:\n%s", ee, rest)
			assert.Contains(t, string(rest), "interrupted")
		})
	}
}

// TestReportRefusesWhatIsNoResultFile: idemcheck report reads a regular
// file of bounded size only: a FIFO is refused at once (it would block
// until a writer came), a file over maxResultBytes is refused unread; a
// result.json its directory's manifest does not vouch for (a set cut
// short) is refused, one it does is read.
func TestReportRefusesWhatIsNoResultFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxResultBytes+1)) // sparse: no disk used
	require.NoError(t, f.Close())

	set := t.TempDir()
	require.NoError(t, reports.WriteDir(set, fixtureResult(t, "mismatch"), nil, reports.Options{}))
	cut := t.TempDir()
	require.NoError(t, reports.WriteDir(cut, fixtureResult(t, "mismatch"), nil, reports.Options{}))
	writeResult(t, cut, "result.json", fixtureResult(t, "mark-first")) // another run's, beside the first's manifest

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		why, path, want string
	}{
		{"a FIFO", fifo, "not a regular file (a FIFO)"},
		{"a directory", dir, "not a regular file (a directory)"},
		{"too large", huge, "more than the 128 MiB a result may be"},
		{"a set cut short", filepath.Join(cut, "result.json"), "not the one manifest.json lists"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			code, out, errs := runCLI(t, ctx, "report", "--quiet", tc.path)
			assert.Equal(t, exitUsage, code, errs)
			assert.Contains(t, errs, tc.want)
			assert.Empty(t, out)
		})
	}
	code, _, errs := runCLI(t, ctx, "report", "--quiet", "--min-score", "2", filepath.Join(set, "result.json"))
	assert.Equal(t, exitOK, code, "a whole set is read: %s", errs)
}

// TestOneRunPerOut: while a process holds an --out directory, a run on it
// is refused (exit 2) before it starts, naming the holder; once released,
// the same run goes ahead.
func TestOneRunPerOut(t *testing.T) {
	out := t.TempDir()
	result := writeResult(t, t.TempDir(), "result.json", fixtureResult(t, "mismatch"))
	unlock, err := reports.LockDir(out)
	require.NoError(t, err)
	for _, args := range [][]string{
		{"report", "--quiet", "--out", out, result},
		{"run", "-c", writeConfig(t, "correct"), "--quiet", "--out", out},
		{"demo", "--quiet", "--out", out},
	} {
		code, _, errs := runCLI(t, t.Context(), args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errs)
		assert.Contains(t, errs, "is in use by another idemcheck (pid ", args[0])
	}
	entries, _ := os.ReadDir(out)
	assert.Len(t, entries, 1, "nothing written but the holder's lock")

	unlock()
	code, _, errs := runCLI(t, t.Context(), "report", "--quiet", "--min-score", "2", "--format", "json", "--out", out, result)
	require.Equal(t, exitOK, code, errs)
	_, err = reports.VerifySet(out)
	assert.NoError(t, err, "the set is whole, with its manifest")
	assert.NoFileExists(t, filepath.Join(out, reports.LockFile), "released at the end")
}
