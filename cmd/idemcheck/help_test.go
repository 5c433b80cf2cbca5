package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
			"idemcheck 0.1.0-dev, built from a checkout at revision 8c715c7ab1c2 (2026-11-23T21:00:00Z) with uncommitted changes\n"},
		{"go build without version control", buildInfo{Version: "(devel)"}, "idemcheck 0.1.0-dev, built from a checkout without version control information\n"},
		{"no build information", buildInfo{}, "idemcheck 0.1.0-dev, built from a checkout without version control information\n"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			assert.Equal(t, tc.want, versionText(tc.b))
			assert.Equal(t, tc.b.version(), printedVersion(t, versionText(tc.b)), "it prints the version the reports record")
		})
	}
}

// printedVersion is the version in what idemcheck version printed:
// "idemcheck VERSION[, …]".
func printedVersion(t *testing.T, out string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(out, "idemcheck ")
	require.True(t, ok, "idemcheck version printed %q", out)
	v, _, _ := strings.Cut(strings.TrimSpace(rest), ",")
	return v
}

// reportedVersions runs idemcheck run, through idemcheck (the program's
// arguments after its name, its stdout), against a correct reference
// target, with a report in every format that says the version, and
// returns the version each says: the JSON report's and result.json's
// meta.version, the JUnit report's version property, the Markdown
// report's summary line and the HTML report's.
func reportedVersions(t *testing.T, idemcheck func(args ...string) string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	cfg := writeConfigWith(t, "faults: []\n", "correct")
	idemcheck("run", "-c", cfg, "--only", "retry.sequential", "--trials", "0", "--quiet", "--format", "json,junit,md,html", "--out", dir)
	got := map[string]string{}
	for _, f := range []string{"report.json", "result.json"} {
		var doc struct {
			Meta struct{ Version string } `json:"meta"`
		}
		require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, f))), &doc), f)
		got[f] = doc.Meta.Version
	}
	if m := regexp.MustCompile(`<property name="version" value="([^"]*)">`).FindStringSubmatch(readFile(t, filepath.Join(dir, "report.xml"))); m != nil {
		got["report.xml"] = m[1]
	}
	if m := regexp.MustCompile(`(?m) · idemcheck (\S+)$`).FindStringSubmatch(readFile(t, filepath.Join(dir, "report.md"))); m != nil {
		got["report.md"] = m[1]
	}
	if m := regexp.MustCompile(`<dt>idemcheck</dt><dd>([^<]*)</dd>`).FindStringSubmatch(readFile(t, filepath.Join(dir, "report.html"))); m != nil {
		got["report.html"] = m[1]
	}
	return got
}

// TestReportsSayTheVersionIdemcheckVersionPrints: idemcheck version and
// every report of a run name one version (before, a build from a
// checkout printed "(devel)" while its reports said "0.1.0-dev").
func TestReportsSayTheVersionIdemcheckVersionPrints(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	idemcheck := func(args ...string) string {
		code, out, errs := runCLI(t, ctx, args...)
		require.Equal(t, exitOK, code, "idemcheck %s: %s", strings.Join(args, " "), errs)
		return out
	}
	v := printedVersion(t, idemcheck("version"))
	assert.Equal(t, version(), v)
	want := map[string]string{}
	for _, f := range []string{"report.json", "result.json", "report.xml", "report.md", "report.html"} {
		want[f] = v
	}
	assert.Equal(t, want, reportedVersions(t, idemcheck))
	requireNoTargetsLeft(t)
}

// TestABuildFromACheckoutSaysOneVersion builds idemcheck as a user does
// from a checkout (go build, which makes the main module's version
// "(devel)") and runs it: idemcheck version and every report of a run
// say 0.1.0-dev.
func TestABuildFromACheckoutSaysOneVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemcheck: skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the Go toolchain is needed to build idemcheck: go is not on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	exe := filepath.Join(t.TempDir(), "idemcheck")
	out, err := exec.CommandContext(ctx, goTool, "build", "-o", exe, modulePath+"/cmd/idemcheck").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	info, err := exec.CommandContext(ctx, goTool, "version", "-m", exe).Output()
	require.NoError(t, err)
	require.Regexp(t, `(?m)^\s+mod\s+`+regexp.QuoteMeta(modulePath)+`\s+\(devel\)`, string(info), "a build from a checkout is version (devel)")
	idemcheck := func(args ...string) string {
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.WaitDelay = 10 * time.Second
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "idemcheck %s: %s", strings.Join(args, " "), stderr.String())
		return string(out)
	}
	printed := idemcheck("version")
	assert.True(t, strings.HasPrefix(printed, "idemcheck "+devVersion+", built from a checkout"), printed)
	want := map[string]string{}
	for _, f := range []string{"report.json", "result.json", "report.xml", "report.md", "report.html"} {
		want[f] = devVersion
	}
	assert.Equal(t, want, reportedVersions(t, idemcheck))
	requireNoTargetsLeft(t)
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
