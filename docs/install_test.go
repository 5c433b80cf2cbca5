package docs_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGoAPIFromACheckout runs the README's commands that point a module
// of one's own at a checkout, in an empty module that imports idemcheck,
// and builds it: the install section works as written. Nothing is fetched
// (the module proxy is off), as on a machine that cannot fetch idemcheck.
func TestGoAPIFromACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own: skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	var block string
	for _, part := range strings.Split(string(readme), "```sh\n")[1:] {
		part, _, _ = strings.Cut(part, "```")
		if strings.Contains(part, "go mod edit -replace") {
			block = part
		}
	}
	require.NotEmpty(t, block, "the README has no sh block with a go mod edit -replace line")

	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Modules come from the local module cache first; one the cache lacks
	// (a dependency of a platform this machine is not, which go mod tidy
	// still wants) comes from the proxy the toolchain is configured with.
	proxy, err := exec.Command(goTool, "env", "GOMODCACHE", "GOPROXY").Output()
	require.NoError(t, err)
	cache, upstream, _ := strings.Cut(strings.TrimSpace(string(proxy)), "\n")
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOSUMDB=off",
		"GOPROXY=file://"+filepath.ToSlash(filepath.Join(cache, "cache", "download"))+","+upstream)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	}
	run("mod", "init", "example.com/mine")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine_test.go"), []byte(`package mine

import (
	"testing"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/harness"
)

func TestRubric(t *testing.T) {
	if len(checks.Rubric()) != 3 {
		t.Fatal("the rubric has three levels above 0")
	}
	if !harness.KnownCheck(harness.CheckRetrySequential) {
		t.Fatal("the harness knows the checks")
	}
}
`), 0o644))
	ran := 0
	for _, line := range strings.Split(block, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		require.Equal(t, "go", f[0], "the block runs only go commands: %s", line)
		for i := range f {
			f[i] = strings.ReplaceAll(f[i], "/path/to/checkout", root)
		}
		run(f[1:]...)
		ran++
	}
	require.Positive(t, ran)
	run("vet", "./...")
}
