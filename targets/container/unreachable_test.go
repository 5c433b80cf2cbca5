package container_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ory/dockertest/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/container"
)

// closedSocket is a Docker endpoint where nothing listens.
const closedSocket = "unix:///nonexistent/docker.sock"

// TestUnreachable: without a Docker engine, every entry point says so
// plainly; these need no Docker and always run.
func TestUnreachable(t *testing.T) {
	const want = "Docker is not reachable at " + closedSocket + ": "
	const need = "container targets need a running Docker engine"

	t.Run("connect", func(t *testing.T) {
		_, err := container.Connect(context.Background(), closedSocket)
		var ue *container.UnreachableError
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, closedSocket, ue.Endpoint)
		assert.Contains(t, err.Error(), want)
		assert.Contains(t, err.Error(), need)
	})

	t.Run("build", func(t *testing.T) {
		pool, err := dockertest.NewPool(closedSocket)
		require.NoError(t, err, "making a pool does not connect")
		mustShopBinaries(t) // a static binary, so Build gets as far as the engine
		err = container.Build(context.Background(), pool, container.Image{Name: "idemcheck-test/unreachable", Binary: imageOf("correct").Binary})
		var ue *container.UnreachableError
		require.ErrorAs(t, err, &ue)
		assert.Contains(t, err.Error(), want)
	})

	t.Run("verify", func(t *testing.T) {
		t.Setenv("DOCKER_HOST", closedSocket)
		spec := container.Spec(examples.ShopConfig("ctr-unreachable", true), shopLaunch("correct"), examples.PaymentsFake)
		res, err := harness.Verify(context.Background(), []harness.Spec{spec})
		require.NoError(t, err)
		require.Len(t, res.Targets, 1)
		tr := res.Targets[0]
		assert.Contains(t, tr.Error, "target ctr-unreachable: "+want, "the target could not be tested (exit 3)")
		assert.Contains(t, tr.Error, need)
	})
}

// TestBuildRejects: what cannot run alone in a FROM scratch image is
// refused before the engine is asked.
func TestBuildRejects(t *testing.T) {
	pool, err := dockertest.NewPool(closedSocket)
	require.NoError(t, err)
	text := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(text, []byte("#!/bin/sh\necho hi\n"), 0o755))
	cases := []struct {
		name string
		img  container.Image
		want string
	}{
		{"no name", container.Image{Binary: text}, "Name and Binary are required"},
		{"missing binary", container.Image{Name: "x", Binary: filepath.Join(t.TempDir(), "none")}, "read the binary"},
		{"not ELF: a script needs a shell the image lacks", container.Image{Name: "x", Binary: text}, "is not a Linux executable"},
	}
	if _, err := os.Stat("/bin/sh"); err == nil {
		cases = append(cases, struct {
			name string
			img  container.Image
			want string
		}{"dynamic: needs a libc the image lacks", container.Image{Name: "x", Binary: "/bin/sh"}, "is dynamically linked"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := container.Build(context.Background(), pool, tc.img)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
