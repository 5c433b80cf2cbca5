package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContainerRunWithoutDocker: a container target reaches Docker only
// when it starts, so a missing engine is that target's error: idemcheck run
// exits 3 with the reason, never with a configuration error.
func TestContainerRunWithoutDocker(t *testing.T) {
	endpoint := "unix://" + filepath.Join(t.TempDir(), "no-docker.sock")
	t.Setenv("DOCKER_HOST", endpoint)
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	yml := strings.ReplaceAll(`version: 1
targets:
  - name: boxed
    kind: container
    image: shop:1.4
    cmd: [--listen, "127.0.0.1:{{port}}"]
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
  - name: built
    kind: container
    build: {binary: BINARY}
    port: 8080
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
`, "BINARY", strconv.Quote(someFile(t)))
	require.NoError(t, os.WriteFile(cfg, []byte(yml), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--quiet")
	assert.Equal(t, exitHarness, code, "stdout: %s\nstderr: %s", out, errs)
	assert.Contains(t, errs, "boxed: target boxed: Docker is not reachable at "+endpoint)
	assert.Contains(t, errs, "built: target built: Docker is not reachable at "+endpoint)
	assert.Contains(t, errs, "container targets need a running Docker engine")
}

// someFile returns the path of a file that exists.
func someFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop")
	require.NoError(t, os.WriteFile(path, []byte("not really a binary"), 0o755))
	return path
}

// A binary that is not there is a mistake in the file, reported before
// anything runs (exit 2) at its line, not a target that failed to start.
func TestContainerBinaryIsCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`version: 1
targets:
  - name: built
    kind: container
    build: {binary: ./no-such-binary}
    cmd: [--listen, "127.0.0.1:{{port}}"]
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
  - name: dir
    kind: container
    build:
      binary: `+dir+`
    cmd: [--listen, "127.0.0.1:{{port}}"]
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
`), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--quiet")
	assert.Equal(t, exitUsage, code, "stdout: %s\nstderr: %s", out, errs)
	assert.Contains(t, errs, cfg+`:5:21: targets[0].build.binary: the binary "./no-such-binary" does not exist`)
	assert.Contains(t, errs, cfg+":12:15: targets[1].build.binary: "+strconv.Quote(dir)+" is a directory")
}
