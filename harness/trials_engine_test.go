package harness_test

import (
	"context"
	"flag"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// TestVerifyLeavesTheProgramsFlagsAlone: a program with its own
// flag.CommandLine, not yet parsed, runs Verify with generated trials; its
// flag set comes back as it was (one flag, unparsed, nothing registered),
// and rapid's own flags keep their values.
func TestVerifyLeavesTheProgramsFlagsAlone(t *testing.T) {
	orig := flag.CommandLine
	before := map[string]string{}
	orig.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") {
			before[f.Name] = f.Value.String()
		}
	})
	require.NotEmpty(t, before, "rapid registers its flags on the process's flag set")
	mine := flag.NewFlagSet("program", flag.ContinueOnError)
	mine.String("region", "eu", "the program's own flag")
	flag.CommandLine = mine
	t.Cleanup(func() { flag.CommandLine = orig })

	res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(2)}, harness.WithSeed(5), harness.WithTrials(300))
	flag.CommandLine = orig
	require.NoError(t, err)
	require.NotNil(t, res.Targets[0].Scenario)
	require.NotNil(t, res.Targets[0].Scenario.Counterexample, "the trials ran and found the eviction")

	assert.False(t, mine.Parsed(), "Verify parsed the program's flags")
	var names []string
	mine.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	assert.Equal(t, []string{"region"}, names, "Verify registered flags on the program's flag set")
	assert.Equal(t, "eu", mine.Lookup("region").Value.String())
	after := map[string]string{}
	orig.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") {
			after[f.Name] = f.Value.String()
		}
	})
	assert.Equal(t, before, after, "Verify changed rapid's flags")
}

// TestTrialsOfTwoTargetsOverlap: two targets' generated trials are in
// flight at once. Each target's first trial waits (with a deadline) until
// the other's has started; trials that took turns would never see it.
func TestTrialsOfTwoTargetsOverlap(t *testing.T) {
	t.Parallel()
	started := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	var once = map[string]*sync.Once{"a": {}, "b": {}}
	var mu sync.Mutex
	overlapped := map[string]bool{}
	spec := func(name, other string) harness.Spec {
		s := lruSpec(0)
		s.Name = name
		start := s.Start
		s.Start = func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			if strings.Contains(env.StateDir, "idemcheck-trial-") {
				first := false
				once[name].Do(func() { first = true; close(started[name]) })
				if first {
					select {
					case <-started[other]:
						mu.Lock()
						overlapped[name] = true
						mu.Unlock()
					case <-time.After(30 * time.Second):
					case <-ctx.Done():
					}
				}
			}
			return start(ctx, env)
		}
		return s
	}
	res, err := harness.Verify(context.Background(), []harness.Spec{spec("a", "b"), spec("b", "a")},
		harness.WithSeed(2), harness.WithTrials(20), harness.WithParallel(2))
	require.NoError(t, err)
	for _, tr := range res.Targets {
		require.Empty(t, tr.Error)
		require.NotNil(t, tr.Scenario)
		assert.Equal(t, 20, tr.Scenario.Trials)
	}
	assert.True(t, overlapped["a"] && overlapped["b"], "both targets' trials in flight at once: %v", overlapped)
}
