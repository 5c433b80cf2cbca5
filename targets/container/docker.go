package container

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ory/dockertest/v3"
)

// pingLimit bounds the check that the engine answers.
const pingLimit = 10 * time.Second

// apiLimit bounds one engine call that is not a wait (create, kill, remove,
// logs, inspect), so a hung engine cannot hang the harness.
const apiLimit = 30 * time.Second

// UnreachableError reports a Docker engine that could not be reached: no
// socket, no daemon, no permission, or no answer.
type UnreachableError struct {
	// Endpoint is where the engine was looked for, e.g.
	// unix:///var/run/docker.sock.
	Endpoint string
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("Docker is not reachable at %s: %v; container targets need a running Docker engine (start it, or point DOCKER_HOST at it)", e.Endpoint, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Connect returns a pool on the Docker engine at endpoint ("" means
// DOCKER_HOST, else the local socket) once the engine has answered a ping,
// or an *UnreachableError.
func Connect(ctx context.Context, endpoint string) (*dockertest.Pool, error) {
	pool, err := dockertest.NewPool(endpoint)
	if err != nil {
		if endpoint == "" {
			endpoint = "the default endpoint (DOCKER_HOST unset)"
		}
		return nil, &UnreachableError{Endpoint: endpoint, Err: err}
	}
	if err := ping(ctx, pool); err != nil {
		release(pool)
		return nil, err
	}
	return pool, nil
}

// ping checks that the pool's engine answers.
func ping(ctx context.Context, pool *dockertest.Pool) error {
	if pool == nil || pool.Client == nil {
		return errors.New("container: no Docker pool; make one with container.Connect or dockertest.NewPool")
	}
	pctx, cancel := context.WithTimeout(ctx, pingLimit)
	defer cancel()
	if err := pool.Client.PingWithContext(pctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("container: interrupted while reaching Docker: %w", ctx.Err())
		}
		return &UnreachableError{Endpoint: pool.Client.Endpoint(), Err: err}
	}
	return nil
}

// release closes the pool's idle connections to the engine.
func release(pool *dockertest.Pool) {
	if pool.Client.HTTPClient != nil {
		pool.Client.HTTPClient.CloseIdleConnections()
	}
}
