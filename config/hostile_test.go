package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
