package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subcommands are every command idemcheck documents.
var subcommands = []string{"demo", "run", "replay", "report", "fakes", "init", "cleanup", "version"}

// TestEverySubcommandAnswersHelp: -h, --help and idemcheck help COMMAND
// print the command's usage and flags on stdout, nothing on stderr, and
// exit 0; before, Go's flag package printed its defaults, then "flag: help
// requested", and exited 2.
func TestEverySubcommandAnswersHelp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, cmd := range subcommands {
		t.Run(cmd, func(t *testing.T) {
			var first string
			for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {"help", cmd}} {
				code, out, errs := runCLI(t, ctx, args...)
				require.Equal(t, exitOK, code, "%v: %s", args, errs)
				assert.Empty(t, errs, "%v", args)
				assert.True(t, strings.HasPrefix(out, "Usage:\n  idemcheck "+cmd), "%v:\n%s", args, out)
				assert.NotContains(t, out, "help requested")
				for i, line := range strings.Split(out, "\n") {
					assert.LessOrEqual(t, utf8.RuneCountInString(line), 80, "%v line %d: %q", args, i+1, line)
				}
				if first == "" {
					first = out
				}
				assert.Equal(t, first, out, "%v says what %s -h says", args, cmd)
			}
		})
	}
	_, out, _ := runCLI(t, ctx, "run", "--help")
	for _, want := range []string{"  -c, --config FILE\n", "  --trials N\n", "default 25)", "  --only CHECK,…\n", "default: idemcheck.yaml in the"} {
		assert.Contains(t, out, want)
	}
	_, out, _ = runCLI(t, ctx, "fakes", "--help")
	assert.Contains(t, out, "  -c, --config FILE\n", "an alias that says it is the same as --config joins its entry")
}

// TestABadFlagIsSaidOnce: a flag error is printed once, with a hint to
// --help, and exits 2.
func TestABadFlagIsSaidOnce(t *testing.T) {
	code, out, errs := runCLI(t, context.Background(), "demo", "--bogus")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errs, "flag provided but not defined: -bogus"), errs)
	assert.Contains(t, errs, "idemcheck demo --help")
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errs := runCLI(t, context.Background(), args...)
		assert.Equal(t, exitOK, code, errs)
		assert.Equal(t, versionText(readBuildInfo()), out)
		assert.True(t, strings.HasPrefix(out, "idemcheck "), out)
	}
	code, _, _ := runCLI(t, context.Background(), "version", "extra")
	assert.Equal(t, exitUsage, code)
}

// TestVersionText: the rows are the builds a user may have.
func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		why  string
		b    buildInfo
		want string
	}{
		{"go install …@v1.2.0", buildInfo{Version: "v1.2.0", Go: "go1.26.0"}, "idemcheck v1.2.0, go1.26.0\n"},
		{"go install …@latest of an untagged commit", buildInfo{Version: "v0.0.0-20261123210000-8c715c7ab1c2"}, "idemcheck v0.0.0-20261123210000-8c715c7ab1c2\n"},
		{"go build in a checkout", buildInfo{Version: "(devel)", Revision: "8c715c7ab1c2d3e4f5a6", Time: "2026-11-23T21:00:00Z", Modified: true},
			"idemcheck (devel), built from a checkout at revision 8c715c7ab1c2 (2026-11-23T21:00:00Z) with uncommitted changes\n"},
		{"go build without version control", buildInfo{Version: "(devel)"}, "idemcheck (devel), built from a checkout without version control information\n"},
		{"no build information", buildInfo{}, "idemcheck (devel), built from a checkout without version control information\n"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			assert.Equal(t, tc.want, versionText(tc.b))
		})
	}
}

// TestRunReadsIdemcheckYAMLByDefault: run with no -c reads idemcheck.yaml
// from the working directory (shown by its error naming that file's line);
// without one, it says so and exits 2.
func TestRunReadsIdemcheckYAMLByDefault(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, errs := runCLI(t, context.Background(), "run", "--quiet")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "no idemcheck.yaml in "+dir)
	assert.Contains(t, errs, "idemcheck init")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "idemcheck.yaml"), []byte("version: 1\ntargetz: []\n"), 0o644))
	code, _, errs = runCLI(t, context.Background(), "run", "--quiet")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "idemcheck.yaml:2")
	assert.Contains(t, errs, "targetz")
	code, _, errs = runCLI(t, context.Background(), "replay", "--quiet", "nope.json")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "nope.json does not exist")
}
