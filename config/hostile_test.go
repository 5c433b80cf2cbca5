package config_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

// TestDurationsOutOfRange: an absurd duration is a mistake,
// reported with its line and column.
func TestDurationsOutOfRange(t *testing.T) {
	valid, err := os.ReadFile("testdata/valid.yaml")
	require.NoError(t, err)
	for _, d := range []string{"876000h", "25h"} {
		t.Run(d, func(t *testing.T) {
			data := bytes.Replace(valid, []byte("    timeout: 2s"), []byte("    timeout: "+d), 1)
			require.NotEqual(t, valid, data)
			_, err := config.Parse("idemcheck.yaml", data)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "idemcheck.yaml:27:14")
			assert.Contains(t, err.Error(), "out of range")
		})
	}
	_, err = config.Parse("idemcheck.yaml", bytes.Replace(valid, []byte("    timeout: 2s"), []byte("    timeout: 24h"), 1))
	assert.NoError(t, err, "a day is allowed")
}

// TestLoadRefusesAHugeFile: a 50 MiB file is refused after reading a few
// MiB of it, not parsed.
func TestLoadRefusesAHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	line := "# " + strings.Repeat("x", 1021) + "\n"
	require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte(line), 50<<10), 0o644))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := config.Load(path)
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 4 MiB")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated to refuse the file")
}

// TestLoadFromAFIFO: a configuration written into a FIFO loads, whether
// its writer opened first (a shell's -c <(…)) or comes a moment after
// the reader (mkfifo f; idemcheck run -c f & gen > f); a FIFO no writer
// opens is given up after the read timeout instead of blocking the
// program, signals included, in open.
func TestLoadFromAFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	valid, err := os.ReadFile("testdata/valid.yaml")
	require.NoError(t, err)
	fifo := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	// The reader first, the writer once the reader waits for it.
	loaded := make(chan error, 1)
	go func() {
		_, err := config.Load(fifo)
		loaded <- err
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the reader has opened its end
	require.NoError(t, err)
	_, err = w.Write(valid)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	select {
	case err := <-loaded:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("Load never returned")
	}

	restore := config.SetReadTimeout(100 * time.Millisecond)
	defer restore()
	go func() {
		_, err := config.Load(fifo)
		loaded <- err
	}()
	select {
	case err := <-loaded:
		require.Error(t, err, "no writer came")
		assert.Contains(t, err.Error(), "a FIFO no writer opened within 100ms")
	case <-time.After(time.Minute):
		t.Fatal("Load blocked on a FIFO nobody writes to")
	}
}

// TestLoadFromAFIFOEndsWithItsContext: a signal (a cancelled context)
// ends the wait for a FIFO's writer, and for the rest of what a writer
// that never finishes writes, at once, not after the read timeout.
func TestLoadFromAFIFOEndsWithItsContext(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	fifo := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	load := func(ctx context.Context) <-chan error {
		loaded := make(chan error, 1)
		go func() {
			_, err := config.LoadContext(ctx, fifo)
			loaded <- err
		}()
		return loaded
	}
	wait := func(loaded <-chan error, what string) {
		t.Helper()
		select {
		case err := <-loaded:
			require.ErrorIs(t, err, context.Canceled, what)
		case <-time.After(5 * time.Second): // the read timeout is 10 s
			t.Fatalf("%s: Load did not end with its context", what)
		}
	}

	// No writer: the open waits.
	ctx, cancel := context.WithCancel(context.Background())
	loaded := load(ctx)
	cancel()
	wait(loaded, "no writer")

	// A writer that opened, wrote a line and holds the FIFO open.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	loaded = load(ctx)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the reader has opened its end
	require.NoError(t, err)
	defer w.Close()
	_, err = w.Write([]byte("version: 1\n"))
	require.NoError(t, err)
	cancel()
	wait(loaded, "a writer that never finishes")
}

// TestErrorsOfADeepFileStayShort: a file nested thousands of levels deep,
// with a thousand errors at the deepest, gives a message of a few KiB: the first
// errors, their paths cut in the middle, and how many more there are.
func TestErrorsOfADeepFileStayShort(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nx:\n")
	for i := range 2000 {
		b.WriteString(strings.Repeat(" ", i+1) + "k:\n")
	}
	for range 1000 { // the same key again and again, at the deepest level
		b.WriteString(strings.Repeat(" ", 2000) + "k:\n")
	}
	_, err := config.Parse("deep.yaml", []byte(b.String()))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 64<<10, "the message of a deep file")
	var errs config.Errors
	require.ErrorAs(t, err, &errs)
	if len(errs) > 50 {
		assert.Contains(t, err.Error(), fmt.Sprintf("… and %d more problems", len(errs)-50))
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		assert.Less(t, len(line), 2048, "one error's line")
	}
}
