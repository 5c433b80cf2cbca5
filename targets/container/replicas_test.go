package container_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/redisserver"
	"github.com/idemcheck/idemcheck/targets/container"
)

// TestReplicasInContainers: replicas: 2 runs two containers of one image,
// reached as a load balancer would (calls in turn, a burst split between
// them), crashed and restarted together. The shop that keeps its keys in
// process memory duplicates across the two, and the findings say it is
// one store per instance; the shop that keeps them in one Redis both
// share is correct with two containers as with one.
func TestReplicasInContainers(t *testing.T) {
	t.Parallel()
	pool := mustDocker(t)
	mustShopImages(t, pool)
	rs := redisserver.Must(t)
	scaled := func(name, profile string, extra ...string) harness.Spec {
		l := shopLaunch(profile)
		l.Cmd = append(slices.Clone(l.Cmd), extra...)
		l.Replicas = 2
		return container.Spec(examples.ShopConfig(name, true), l, examples.PaymentsFake)
	}
	specs := []harness.Spec{
		scaled("ctr-memory-x2", "memory-cache"),
		scaled("ctr-redis-x2", "redis-correct", "--redis", rs.Addr(), "--instance", "{{replica}}"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	res, err := harness.Verify(ctx, specs, harness.WithSeed(5), harness.WithTrials(0))
	require.NoError(t, err)
	require.Len(t, res.Targets, 2)
	for _, tr := range res.Targets {
		require.Empty(t, tr.Error, tr.Name)
		for _, f := range tr.Findings {
			t.Logf("%s: %s %s %s: %s", tr.Name, f.Severity, f.Check, f.Fault, f.Message)
		}
		served := map[string]bool{}
		for _, in := range tr.Record.Intents {
			for _, a := range in.Attempts {
				served[a.Instance] = true
			}
		}
		assert.True(t, served["instance 1"] && served["instance 2"], "%s: attempts record their container: %v", tr.Name, served)
		assert.Positive(t, crashes(tr), "%s: crash faults killed the containers", tr.Name)
		assert.Empty(t, leftovers(t, pool, tr.Name), "%s: every container was removed", tr.Name)
	}
	memory, shared := res.Targets[0], res.Targets[1]
	assert.Less(t, memory.Score.Level, 3, memory.Score.Reason)
	perInstance := false
	for _, f := range memory.Findings {
		perInstance = perInstance || strings.Contains(f.Message, "one store per instance")
	}
	assert.True(t, perInstance, "the duplicates are explained by the two stores")
	assert.Equal(t, 3, shared.Score.Level, shared.Score.Reason)
	assert.Empty(t, shared.Findings)
}

// TestReplicasNeedAPortEachContainer: containers on the host's network
// cannot share one fixed port.
func TestReplicasNeedAPortEachContainer(t *testing.T) {
	l := shopLaunch("correct")
	l.Port, l.Replicas = "8080", 2
	_, err := container.Spec(examples.ShopConfig("ctr-fixed", true), l).Start(context.Background(), fakeEnv(t, "run-fixed-port"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot all listen on port 8080")
}
