package container_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/targets/container"
)

// binDir holds the static shop binaries built for the images; removed
// after the tests.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "idemcheck-container-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// waitLimit bounds a whole scenario: a deadline for a hang, not a timing
// assertion.
const waitLimit = 60 * time.Second

// mustDocker returns a pool on the local Docker engine, or skips the test:
// these tests need a running engine, and CI must provide one (.ci/run
// prints `docker version` so its log shows whether it did).
func mustDocker(t testing.TB) *dockertest.Pool {
	t.Helper()
	pool, err := container.Connect(context.Background(), "")
	if err != nil {
		t.Skipf("skipping: the container adapter's tests need a running Docker engine, and CI must have one:\n%v", err)
	}
	t.Cleanup(pool.Client.HTTPClient.CloseIdleConnections)
	return pool
}

// The reference shop profiles the tests run in containers.
var profiles = []string{"correct", "memory-cache", "redis-correct"}

var (
	binariesOnce sync.Once
	binariesErr  error
	imagesOnce   sync.Once
	imagesErr    error
)

// imageOf names the test image of a shop profile.
func imageOf(profile string) container.Image {
	return container.Image{Name: "idemcheck-test/shop-" + profile, Tag: "test", Binary: filepath.Join(binDir, profile)}
}

// mustShopBinaries builds static Linux binaries of the shop profiles into
// binDir with the Go toolchain, once per test binary.
func mustShopBinaries(t testing.TB) {
	t.Helper()
	binariesOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = "go" // go test puts its own toolchain first on PATH
		}
		args := []string{"build", "-o", binDir + string(filepath.Separator)}
		for _, p := range profiles {
			args = append(args, "./examples/http/"+p)
		}
		cmd := exec.Command(goTool, args...)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
		if out, err := cmd.CombinedOutput(); err != nil {
			binariesErr = fmt.Errorf("go build of the shop profiles: %v\n%s", err, out)
		}
	})
	require.NoError(t, binariesErr)
}

// mustShopImages builds the images of the shop profiles FROM scratch, once
// per test binary.
func mustShopImages(t testing.TB, pool *dockertest.Pool) {
	t.Helper()
	mustShopBinaries(t)
	imagesOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		for _, p := range profiles {
			if err := container.Build(ctx, pool, imageOf(p)); err != nil {
				imagesErr = err
				return
			}
		}
	})
	require.NoError(t, imagesErr)
}

// leftovers lists the containers, running or not, that carry the run label
// and are the target's.
func leftovers(t testing.TB, pool *dockertest.Pool, target string) []string {
	t.Helper()
	cs, err := pool.Client.ListContainers(dc.ListContainersOptions{
		All:     true,
		Filters: map[string][]string{"label": {container.RunLabel, container.TargetLabel + "=" + target}},
	})
	require.NoError(t, err)
	var names []string
	for _, c := range cs {
		names = append(names, fmt.Sprint(c.Names))
	}
	return names
}
