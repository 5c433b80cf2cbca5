package container

import (
	"context"
	"fmt"

	dc "github.com/ory/dockertest/v3/docker"
)

// RemoveOrphans removes, running or not, every container an idemcheck
// process started (OwnerLabel) whose owner is no longer running, as alive
// tells (process.OwnerAlive): what a SIGKILLed run left. Containers of
// running idemcheck processes are left alone. endpoint is as for Connect.
// It returns how many it removed.
func RemoveOrphans(ctx context.Context, endpoint string, alive func(owner string) bool) (int, error) {
	pool, err := Connect(ctx, endpoint)
	if err != nil {
		return 0, err
	}
	defer release(pool)
	cs, err := pool.Client.ListContainers(dc.ListContainersOptions{
		All: true, Filters: map[string][]string{"label": {OwnerLabel}}, Context: ctx,
	})
	if err != nil {
		return 0, fmt.Errorf("listing idemcheck's containers: %w", err)
	}
	removed := 0
	for _, c := range cs {
		if alive(c.Labels[OwnerLabel]) {
			continue
		}
		err := pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true, Context: ctx})
		if err != nil {
			return removed, fmt.Errorf("removing container %s: %w", c.ID, err)
		}
		removed++
	}
	return removed, nil
}
