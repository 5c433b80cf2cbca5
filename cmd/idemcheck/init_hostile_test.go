package main

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless is a reader that never ends: a help text printed for ever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "  create   make a thing\n"[i%24]
	}
	return len(p), nil
}

// TestHelpBufferCapHoldsUnderCopy: exec copies a child's output with
// io.Copy, which would use a ReadFrom method and go around a Write-only cap.
func TestHelpBufferCapHoldsUnderCopy(t *testing.T) {
	buf := limitedBuffer{max: maxHelp}
	n, err := io.Copy(&buf, io.LimitReader(endless{}, 64<<20))
	require.NoError(t, err)
	assert.Equal(t, int64(64<<20), n, "everything is consumed, so the tool never blocks")
	assert.Len(t, buf.String(), maxHelp, "only the cap is kept")
}

// TestInitOnAnEndlessHelp: a tool whose help never ends is cut at the cap
// and killed; init goes on with what it read, within bounded memory.
func TestInitOnAnEndlessHelp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := runCLI(t, ctx, "init", "--", "sh", "-c", `yes "  create-order   make a thing"`)
	runtime.ReadMemStats(&after)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "create-order")
	// What the process holds from the system grows by a few MiB for two
	// capped helps; an uncapped buffer takes gigabytes within seconds.
	assert.Less(t, int64(after.Sys)-int64(before.Sys), int64(200<<20), "memory taken while reading an endless help")
	assert.False(t, strings.Contains(errs, "panic"))
}
