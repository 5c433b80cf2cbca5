package container_test

import (
	"context"
	"testing"

	dc "github.com/ory/dockertest/v3/docker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/targets/container"
	"github.com/idemcheck/idemcheck/targets/process"
)

// TestRemoveOrphans: a container whose idemcheck is gone (a SIGKILLed run)
// is removed; one whose idemcheck still runs is left alone.
func TestRemoveOrphans(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	img := imageOf("correct")
	create := func(owner string) string {
		c, err := pool.Client.CreateContainer(dc.CreateContainerOptions{Config: &dc.Config{
			Image: img.Name + ":" + img.Tag, Labels: map[string]string{container.OwnerLabel: owner},
		}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true}) })
		return c.ID
	}
	dead := create("999999999.1") // no such pid: its idemcheck is gone
	live := create(process.OwnerID())

	n, err := container.RemoveOrphans(context.Background(), "", process.OwnerAlive)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 1)
	_, err = pool.Client.InspectContainer(dead)
	assert.Error(t, err, "the orphan is removed")
	_, err = pool.Client.InspectContainer(live)
	assert.NoError(t, err, "a running idemcheck's container is left alone")
}
