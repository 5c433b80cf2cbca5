package container_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	dc "github.com/ory/dockertest/v3/docker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/targets/container"
)

// builds counts the image builds a pool asks the engine for, by reading
// the request lines it writes to the engine's socket (go-dockerclient
// streams a build on a connection of its own, outside its HTTPClient).
type builds struct {
	next dc.Dialer
	n    atomic.Int32
}

func (b *builds) Dial(network, address string) (net.Conn, error) {
	c, err := b.next.Dial(network, address)
	if err != nil {
		return nil, err
	}
	return &sniffer{Conn: c, b: b}, nil
}

type sniffer struct {
	net.Conn
	b *builds
}

func (s *sniffer) Write(p []byte) (int, error) {
	if line, _, _ := bytes.Cut(p, []byte("\r\n")); bytes.HasPrefix(line, []byte("POST ")) && bytes.Contains(line, []byte("/build?")) {
		s.b.n.Add(1)
	}
	return s.Conn.Write(p)
}

// TestBuildIdempotent: Build skips an image built from the same binary,
// rebuilds a stale one, and rebuilds when forced.
func TestBuildIdempotent(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	ctx := context.Background()
	if !strings.HasPrefix(pool.Client.Endpoint(), "unix://") {
		t.Skip("counting builds needs a unix socket endpoint")
	}
	counter := &builds{next: pool.Client.Dialer}
	pool.Client.Dialer = counter

	correct := imageOf("correct")
	want, err := pool.Client.InspectImage(correct.Ref())
	require.NoError(t, err)
	assert.Equal(t, []string{container.BinaryPath}, want.Config.Entrypoint)
	assert.NotEmpty(t, want.Config.Labels[container.BuildLabel])

	require.NoError(t, container.Build(ctx, pool, correct))
	assert.Equal(t, 0, int(counter.n.Load()), "an up-to-date image is not built again")

	// A stale image under the name: another profile's binary.
	stale := container.Image{Name: "idemcheck-test/shop-stale", Tag: "test", Binary: correct.Binary}
	require.NoError(t, pool.Client.TagImage(imageOf("memory-cache").Ref(), dc.TagImageOptions{Repo: stale.Name, Tag: stale.Tag}))
	t.Cleanup(func() { _ = pool.Client.RemoveImage(stale.Ref()) })
	require.NoError(t, container.Build(ctx, pool, stale))
	assert.Equal(t, 1, int(counter.n.Load()), "a stale image is rebuilt")
	got, err := pool.Client.InspectImage(stale.Ref())
	require.NoError(t, err)
	assert.Equal(t, want.Config.Labels[container.BuildLabel], got.Config.Labels[container.BuildLabel], "now built from the correct binary")

	stale.Force = true
	require.NoError(t, container.Build(ctx, pool, stale))
	assert.Equal(t, 2, int(counter.n.Load()), "Force rebuilds")
	forced, err := pool.Client.InspectImage(stale.Ref())
	require.NoError(t, err)
	assert.NotEqual(t, got.ID, forced.ID, "without the build cache")
}

// TestRebuildRemovesTheImageItReplaced: a build from a new binary moves
// the name to the new image and removes the one it held, which would
// otherwise be left untagged at every change of the binary; an image
// that another name still holds stays.
func TestRebuildRemovesTheImageItReplaced(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	ctx := context.Background()
	// Forced: an image of its own, which only this name holds.
	moved := container.Image{Name: "idemcheck-test/shop-moved", Tag: "test", Binary: imageOf("memory-cache").Binary, Force: true}
	t.Cleanup(func() { _ = pool.Client.RemoveImage(moved.Ref()) })
	require.NoError(t, container.Build(ctx, pool, moved))
	first, err := pool.Client.InspectImage(moved.Ref())
	require.NoError(t, err)

	// A forced rebuild of the same binary replaces it.
	require.NoError(t, container.Build(ctx, pool, moved))
	forced, err := pool.Client.InspectImage(moved.Ref())
	require.NoError(t, err)
	require.NotEqual(t, first.ID, forced.ID)
	_, err = pool.Client.InspectImage(first.ID)
	assert.ErrorIs(t, err, dc.ErrNoSuchImage, "the image a forced build replaced is removed")

	// A build from another binary replaces it.
	moved.Binary, moved.Force = imageOf("correct").Binary, false
	require.NoError(t, container.Build(ctx, pool, moved))
	now, err := pool.Client.InspectImage(moved.Ref())
	require.NoError(t, err)
	require.NotEqual(t, forced.ID, now.ID)
	_, err = pool.Client.InspectImage(forced.ID)
	assert.ErrorIs(t, err, dc.ErrNoSuchImage, "the image the name held is removed")

	// The name moves from an image another name holds (built from the
	// correct binary, the engine's cache gives the test image itself):
	// that one stays.
	shared, err := pool.Client.InspectImage(imageOf("correct").Ref())
	require.NoError(t, err)
	if now.ID != shared.ID {
		t.Skip("the engine's build cache did not give the test image itself: the last case needs it")
	}
	moved.Binary = imageOf("memory-cache").Binary
	require.NoError(t, container.Build(ctx, pool, moved))
	_, err = pool.Client.InspectImage(shared.ID)
	assert.NoError(t, err, "an image another name holds is kept")
}

// TestABuiltImageIsRunByItsID: a Spec that builds its image starts every
// container, a restart's included, from the image it built, though
// another build of that name from another binary (another project's
// target of the same name, on the same engine) has moved the name since.
func TestABuiltImageIsRunByItsID(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	img := container.Image{Name: "idemcheck-test/shop-pinned", Tag: "test", Binary: imageOf("correct").Binary}
	t.Cleanup(func() { _ = pool.Client.RemoveImage(img.Ref()) })
	launch := shopLaunch("correct")
	launch.Build = &img
	spec := container.Spec(examples.ShopConfig("ctr-pinned", true), launch, examples.PaymentsFake)

	runs := func() string {
		tg, err := spec.Start(ctx, fakeEnv(t, "pinned000001"))
		require.NoError(t, err)
		defer func() { require.NoError(t, tg.Close()) }()
		return inspect(t, pool, tg.(*container.Target).ContainerID()).Image
	}
	first := runs()
	built, err := pool.Client.InspectImage(img.Ref())
	require.NoError(t, err)
	assert.Equal(t, built.ID, first)
	// Held by a second name, it outlives the move below.
	require.NoError(t, pool.Client.TagImage(built.ID, dc.TagImageOptions{Repo: img.Name, Tag: "kept"}))
	t.Cleanup(func() { _ = pool.Client.RemoveImage(img.Name + ":kept") })

	// Another binary's build takes the name.
	other := img
	other.Binary = imageOf("memory-cache").Binary
	require.NoError(t, container.Build(ctx, pool, other))
	moved, err := pool.Client.InspectImage(img.Ref())
	require.NoError(t, err)
	require.NotEqual(t, built.ID, moved.ID)
	assert.Equal(t, built.ID, runs(), "the Spec's next start runs the image it built, not the one its name now gives")
}

// TestBinaryTag: the default tag of a built image is the binary's path's:
// one binary keeps one tag, two projects' binaries get two.
func TestBinaryTag(t *testing.T) {
	a := container.BinaryTag("/home/a/shop/bin/shop")
	assert.Regexp(t, `^b[0-9a-f]{12}$`, a)
	assert.Equal(t, a, container.BinaryTag("/home/a/shop/bin/shop"))
	assert.NotEqual(t, a, container.BinaryTag("/home/b/shop/bin/shop"), "another project's binary of the same name")
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, container.BinaryTag(filepath.Join(wd, "bin", "shop")), container.BinaryTag("bin/shop"), "a relative path is taken from the working directory")
}
