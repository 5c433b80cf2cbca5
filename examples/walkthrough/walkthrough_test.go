package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tutorial this directory belongs to, and the section of it that
// shows the files.
const (
	tutorialPath = "../../docs/tutorial.md"
	walkHead     = "## From an empty directory to a first score"
)

// walkFiles are the files the walk-through shows, by name.
var walkFiles = []string{"main.go", "idemcheck.yaml"}

// fence is one fenced block of the tutorial: the line before it (skipping
// blank lines), its info string and its text.
type fence struct {
	before, info, text string
}

// walkthrough returns the fenced blocks of the tutorial's walk-through.
func walkthrough(t *testing.T) []fence {
	t.Helper()
	b, err := os.ReadFile(tutorialPath)
	require.NoError(t, err)
	tutorial := string(b)
	at := strings.Index(tutorial, "\n"+walkHead+"\n")
	require.NotEqual(t, -1, at, "%s has no %q section", tutorialPath, walkHead)
	rest := tutorial[at+len(walkHead)+2:]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}

	var (
		out     []fence
		cur     *fence
		body    strings.Builder
		lastTxt string
	)
	sc := bufio.NewScanner(strings.NewReader(rest))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fence{before: lastTxt, info: strings.TrimPrefix(line, "```")}
			body.Reset()
		case cur != nil && line == "```":
			cur.text = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		case strings.TrimSpace(line) != "":
			lastTxt = line
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "an unclosed fence in the walk-through")
	return out
}

// shownAs returns the block the tutorial introduces as "… as `name`:".
func shownAs(t *testing.T, blocks []fence, name string) string {
	t.Helper()
	var found []string
	for _, f := range blocks {
		if strings.HasSuffix(f.before, "as `"+name+"`:") {
			found = append(found, f.text)
		}
	}
	require.Len(t, found, 1, "the walk-through must show %s exactly once, after a line ending in \"as `%s`:\"", name, name)
	return found[0]
}

// TestTutorialShowsTheseFiles: the walk-through's snippets are these files,
// byte for byte, so that what a reader copies is what the test runs.
func TestTutorialShowsTheseFiles(t *testing.T) {
	blocks := walkthrough(t)
	for _, name := range walkFiles {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.Equal(t, string(b), shownAs(t, blocks, name), "the tutorial's %s and examples/walkthrough/%s differ", name, name)
	}
}

// commands returns the walk-through's shell commands, in order.
func commands(t *testing.T, blocks []fence) [][]string {
	t.Helper()
	var out [][]string
	for _, f := range blocks {
		if f.info != "sh" {
			continue
		}
		require.Empty(t, out, "the walk-through has one sh block of commands")
		for _, line := range strings.Split(f.text, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i] // a comment
			}
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				out = append(out, strings.Fields(line))
			}
		}
	}
	require.NotEmpty(t, out, "the walk-through has no sh block of commands")
	return out
}

// scoreIn returns the SCORE column of target's row in a text report.
func scoreIn(t *testing.T, report, target string) string {
	t.Helper()
	col := -1
	for _, line := range strings.Split(report, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "TARGET" {
			for i, f := range fields {
				if f == "SCORE" {
					col = i
				}
			}
			continue
		}
		if col >= 0 && fields[0] == target && len(fields) > col {
			return fields[col]
		}
	}
	t.Fatalf("no score for %s in:\n%s", target, report)
	return ""
}

// TestWalkthroughFromAnEmptyDirectory runs the tutorial's commands in an
// empty directory holding only the two files, and checks that the score
// is the one the tutorial states. The install line is replaced by a build of
// this checkout, so that the test judges the code it ships with.
func TestWalkthroughFromAnEmptyDirectory(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the walk-through builds a Go service: go is not on PATH")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	blocks := walkthrough(t)
	dir := t.TempDir()
	for _, name := range walkFiles {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	bin := t.TempDir()
	// The service is a module of its own, outside this repository: no
	// workspace, no flags inherited from the test's build.
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=")

	run := func(name string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 10*time.Second
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			t.Logf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), err
	}

	var report string
	ran := map[string]bool{}
	for _, c := range commands(t, blocks) {
		line := strings.Join(c, " ")
		switch {
		case c[0] == "mkdir":
			// The test's empty directory stands for the one made here.
			require.Equal(t, "mkdir pay && cd pay", line)
		case c[0] == "go" && len(c) > 1 && c[1] == "install":
			// go install github.com/idemcheck/idemcheck/cmd/idemcheck@latest
			pkg, _, ok := strings.Cut(c[len(c)-1], "@")
			require.True(t, ok, "the install line names a version: %s", line)
			require.Equal(t, "github.com/idemcheck/idemcheck/cmd/idemcheck", pkg)
			out, err := exec.CommandContext(ctx, goTool, "build", "-o", filepath.Join(bin, "idemcheck"), pkg).CombinedOutput()
			require.NoError(t, err, "building idemcheck: %s", out)
			ran["install"] = true
		case c[0] == "go":
			_, err := run(goTool, c[1:]...)
			require.NoError(t, err, line)
		case c[0] == "idemcheck":
			require.True(t, ran["install"], "idemcheck is run before it is installed")
			out, err := run(filepath.Join(bin, "idemcheck"), c[1:]...)
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				t.Fatalf("%s: exit %d, want 0", line, exit.ExitCode())
			}
			require.NoError(t, err, line)
			report = out
			ran["run"] = true
		default:
			t.Fatalf("the walk-through runs a command this test does not know how to run: %s", line)
		}
	}
	require.True(t, ran["run"], "the walk-through never runs idemcheck")

	// The output the tutorial promises: its block that starts like a run's
	// report. Every line it shows is in what the run printed, in order
	// (seed and time aside); "…" stands for lines left out.
	var promised string
	for _, f := range blocks {
		if strings.HasPrefix(f.text, "idemcheck: ") {
			promised = f.text
		}
	}
	require.NotEmpty(t, promised, "the walk-through shows no output of a run")
	assert.Equal(t, "3", scoreIn(t, promised, "pay"), "the walk-through is meant to end at the top score")
	assert.Equal(t, scoreIn(t, promised, "pay"), scoreIn(t, report, "pay"), "the run printed:\n%s", report)
	got := strings.Split(normalRun(report), "\n")
	at := 0
	for _, want := range strings.Split(normalRun(promised), "\n") {
		if strings.TrimSpace(want) == "" || strings.TrimSpace(want) == "…" {
			continue
		}
		for at < len(got) && got[at] != want {
			at++
		}
		if !assert.Less(t, at, len(got), "the tutorial shows %q, which the run did not print (in that order); it printed:\n%s", want, report) {
			return
		}
		at++
	}
}

// runHeader matches a report's first line, whose seed and time change from
// run to run.
var runHeader = regexp.MustCompile(`(?m)^(idemcheck: [^,]+), seed \d+, [0-9.a-zµ]+$`)

// normalRun is a run's text report with its seed and time left out.
func normalRun(s string) string {
	return runHeader.ReplaceAllString(s, "$1, seed N, T")
}
