package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlagsAfterTheFile: replay and report take their flags after their
// files as well as before (Go's flag package stops at the first argument
// that is not a flag: replay TRIALS.json --seed 3 was refused with a bare
// usage line); a "--" ends the flags; a missing or extra file is said
// with the command's synopsis, and exits 2.
func TestFlagsAfterTheFile(t *testing.T) {
	ctx := context.Background()
	// No idemcheck.yaml here: a -c after the file is what gives replay
	// its configuration.
	t.Chdir(t.TempDir())
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("version: 1\ntargets: []\n"), 0o644))

	for _, args := range [][]string{
		{"replay", "nope.json", "-c", cfg, "--seed", "3", "--quiet"},
		{"replay", "-c", cfg, "nope.json", "--seed", "3"},
		{"replay", "--seed", "3", "-c", cfg, "nope.json"},
	} {
		code, _, errs := runCLI(t, ctx, args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Contains(t, errs, "replay: nope.json does not exist", "%q: the flags are taken wherever they are", args)
	}
	code, _, errs := runCLI(t, ctx, "replay", "nope.json", "--format", "bogus", "-c", cfg)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--format: ", "a flag after the file is checked as one before it")
	code, _, errs = runCLI(t, ctx, "replay", "nope.json", "--bogus")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "flag provided but not defined: -bogus")
	assert.Contains(t, errs, "idemcheck replay --help")
	code, _, errs = runCLI(t, ctx, "replay", "-c", cfg, "--", "-odd.json")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "replay: -odd.json does not exist", "after --, a file named like a flag")

	code, _, errs = runCLI(t, ctx, "replay", "-c", cfg)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "replay: give the TRIALS.json to run again (the failing-trials.json that run --out DIR writes): idemcheck replay [-c FILE] [flags] TRIALS.json")
	code, _, errs = runCLI(t, ctx, "replay", "a.json", "-c", cfg, "b.json")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "replay: one TRIALS.json at a time, not 2 (a.json b.json): idemcheck replay [-c FILE] [flags] TRIALS.json")

	// report did already; both say so alike.
	for _, args := range [][]string{
		{"report", "result.json", "--min-score", "9"},
		{"report", "--min-score", "9", "result.json"},
	} {
		code, _, errs := runCLI(t, ctx, args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Contains(t, errs, "--min-score: 9 is not a score", "%q", args)
	}
	code, _, errs = runCLI(t, ctx, "report", "--quiet", "--", "--min-score")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "report: --min-score: no such file", "after --, a file named like a flag")
}
