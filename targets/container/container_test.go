package container_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/container"
)

// shopLaunch runs a shop profile's image with the shop's own flags; its
// durable key store is in the bind-mounted state directory.
func shopLaunch(profile string) container.Launch {
	return container.Launch{
		Image:        imageOf(profile).Ref(),
		Cmd:          []string{"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}"},
		ReadyPath:    "/healthz",
		ReadyTimeout: 20 * time.Second,
	}
}

// shopSpec is a shop profile as a container target named name.
func shopSpec(name, profile string) harness.Spec {
	return container.Spec(examples.ShopConfig(name, true), shopLaunch(profile), examples.PaymentsFake)
}

// failing returns the ids of the checks that failed, sorted.
func failing(tr harness.TargetResult) []string {
	var ids []string
	for _, c := range tr.Checks {
		if c.Status == harness.StatusFail {
			ids = append(ids, c.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// crashes counts the attempts during which the harness killed the target.
func crashes(tr harness.TargetResult) int {
	n := 0
	for _, in := range tr.Record.Intents {
		for _, a := range in.Attempts {
			if a.Crashed {
				n++
			}
		}
	}
	return n
}

// TestShopInContainers scores reference shop profiles run as containers,
// with every default fault: crash faults kill and restart the container.
func TestShopInContainers(t *testing.T) {
	t.Parallel()
	pool := mustDocker(t)
	mustShopImages(t, pool)
	cases := []struct {
		name, profile string
		score         int
		failing       []string
		// mayFail: true findings whose showing depends on timing (a
		// client that leaves just as the target works), neither required
		// nor forbidden.
		mayFail []string
		why     string
	}{
		{"ctr-correct", "correct", 3, nil, nil, "no false positives on a correct target, whose key store survives the container's crashes in the mounted state directory"},
		{"ctr-memory-cache", "memory-cache", 0, []string{"crash.recovery", "downstream.propagation"}, []string{"retry.after-fault"}, "its in-memory key cache dies with the container, and no key goes downstream"},
	}
	var specs []harness.Spec
	for _, tc := range cases {
		specs = append(specs, shopSpec(tc.name, tc.profile))
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	// One run: the two targets go side by side.
	res, err := harness.Verify(ctx, specs, harness.WithSeed(7))
	require.NoError(t, err)
	require.Len(t, res.Targets, len(cases))
	for i, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			tr := res.Targets[i]
			require.Empty(t, tr.Error, tc.why)
			for _, f := range tr.Findings {
				t.Logf("%s %s %s: %s", f.Severity, f.Check, f.Fault, f.Message)
			}
			assert.Equal(t, container.Kind, tr.Kind)
			assert.Equal(t, container.Kind, tr.Record.Target.Kind)
			assert.True(t, tr.Record.Target.Caps().Restart, "a container target can be crashed")
			assert.True(t, tr.Record.Target.Caps().Burst, "a container target can be sent bursts")
			assert.Empty(t, tr.Record.Unsupported, "every default fault applies to a container")
			assert.Positive(t, crashes(tr), "crash faults really killed the container")
			var got []string
			for _, id := range failing(tr) {
				if !slices.Contains(tc.mayFail, id) {
					got = append(got, id)
				}
			}
			assert.Equal(t, tc.failing, got, tc.why)
			assert.Equal(t, tc.score, tr.Score.Level, "%s: %s", tc.why, tr.Score.Reason)
			if tc.score == 3 {
				assert.Empty(t, tr.Findings, tc.why)
			}
			assert.Empty(t, leftovers(t, pool, tc.name), "every container was removed")
		})
	}
}

// fakeEnv starts the payments fake as the harness would.
func fakeEnv(t testing.TB, runID string) *harness.Env {
	t.Helper()
	ledger := fakes.NewLedger()
	pay, err := examples.PaymentsFake(context.Background(), ledger)
	require.NoError(t, err)
	t.Cleanup(func() { _ = pay.Close() })
	return &harness.Env{
		Fakes:    map[string]fakes.Fake{pay.Name(): pay},
		Ledger:   ledger,
		StateDir: t.TempDir(),
		RunID:    runID,
	}
}

func inspect(t testing.TB, pool *dockertest.Pool, id string) *dc.Container {
	t.Helper()
	c, err := pool.Client.InspectContainer(id)
	require.NoError(t, err)
	return c
}

func order(id, key, marker string) harness.Call {
	return harness.Call{
		ID: id, Operation: "create-order", Key: key, Marker: marker,
		Inputs: map[string]string{"customer": "cus_container", "amount": "1234"},
	}
}

// TestKillRestart crashes and restarts one container by hand: Kill leaves
// it stopped by SIGKILL, Restart brings back the same container with its
// state, and Close removes it.
func TestKillRestart(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	env := fakeEnv(t, "killrestart0001")
	spec := shopSpec("ctr-kill-restart", "correct")
	tg, err := spec.Start(ctx, env)
	require.NoError(t, err)
	target := tg.(*container.Target)
	closed := false
	defer func() {
		if !closed {
			_ = target.Close()
		}
	}()
	assert.Equal(t, container.Kind, target.Info().Kind)

	c := inspect(t, pool, target.ContainerID())
	assert.Equal(t, "killrestart0001", c.Config.Labels[container.RunLabel])
	assert.Equal(t, "ctr-kill-restart", c.Config.Labels[container.TargetLabel])
	assert.Equal(t, "host", c.HostConfig.NetworkMode)
	assert.Equal(t, fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), c.Config.User)
	assert.Contains(t, c.Config.Env, "IDEMCHECK_RUN_ID=killrestart0001")

	first := target.Call(ctx, order("kr-1-1", "key-kr-1", "idem-00000000c0ffee01"))
	require.Equal(t, harness.OK, first.Outcome, "%+v", first)
	assert.Equal(t, "created", first.Effect)
	require.Len(t, env.Ledger.ByMarker("idem-00000000c0ffee01"), 1)
	// The key store is in the state directory, written through the mount,
	// by the harness's own user.
	store, err := os.ReadDir(env.StateDir)
	require.NoError(t, err)
	require.NotEmpty(t, store, "the shop wrote its key store in /state")
	fi, err := os.Stat(filepath.Join(env.StateDir, store[0].Name()))
	require.NoError(t, err)
	assert.Equal(t, uint32(os.Getuid()), fi.Sys().(*syscall.Stat_t).Uid)

	require.NoError(t, target.Kill())
	c = inspect(t, pool, target.ContainerID())
	assert.False(t, c.State.Running, "Kill returns once the container has stopped")
	assert.Equal(t, 137, c.State.ExitCode, "killed by SIGKILL")
	startedBefore := c.State.StartedAt
	down := target.Call(ctx, order("kr-1-2", "key-kr-1", "idem-00000000c0ffee01"))
	assert.Equal(t, harness.Fail, down.Outcome, "nothing answers while it is down: %+v", down)
	require.NoError(t, target.Kill(), "killing a stopped container does nothing")
	assert.Empty(t, target.Down(), "killed by the harness, as a crash fault does: not down")

	require.NoError(t, target.Restart(ctx))
	c = inspect(t, pool, target.ContainerID())
	assert.True(t, c.State.Running)
	assert.True(t, c.State.StartedAt.After(startedBefore), "the same container was started again")
	again := target.Call(ctx, order("kr-1-3", "key-kr-1", "idem-00000000c0ffee01"))
	require.Equal(t, harness.OK, again.Outcome, "%+v", again)
	assert.Equal(t, "noop", again.Effect, "the key store survived the crash")
	assert.Equal(t, first.Identity, again.Identity)
	assert.Len(t, env.Ledger.ByMarker("idem-00000000c0ffee01"), 1, "one charge in all")

	require.NoError(t, target.Restart(ctx), "Restart also works on a running container")
	assert.Empty(t, target.Down(), "restarted by the harness: not down")
	id := target.ContainerID()
	closed = true
	require.NoError(t, target.Close())
	_, err = pool.Client.InspectContainer(id)
	var gone *dc.NoSuchContainer
	assert.ErrorAs(t, err, &gone, "Close removed the container")
	assert.Empty(t, leftovers(t, pool, "ctr-kill-restart"))
	assert.NoError(t, target.Close(), "Close is idempotent")
}

// TestCloseReportsCrash: a container that died without the harness asking
// is reported by Close, with its output, and still removed.
func TestCloseReportsCrash(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	tg, err := shopSpec("ctr-crashed", "correct").Start(ctx, fakeEnv(t, "crashedbyitself1"))
	require.NoError(t, err)
	target := tg.(*container.Target)
	assert.Empty(t, target.Down(), "running")
	// Behind the adapter's back, as an OOM kill would.
	require.NoError(t, pool.Client.KillContainer(dc.KillContainerOptions{ID: target.ContainerID(), Signal: dc.SIGKILL}))
	_, err = pool.Client.WaitContainerWithContext(target.ContainerID(), ctx)
	require.NoError(t, err)
	for target.Down() == "" && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond) // polling the watcher's record, with a deadline
	}
	assert.Contains(t, target.Down(), "exited by itself (exit code 137)", "the harness sees it gone")
	err = target.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "had already exited by itself before Close (exit code 137)")
	assert.Contains(t, err.Error(), "listening on http://127.0.0.1:", "with its last output")
	assert.Empty(t, leftovers(t, pool, "ctr-crashed"))
}

// TestStartFailures: a container that cannot come up is reported with its
// output and removed, whatever stopped it.
func TestStartFailures(t *testing.T) {
	pool := mustDocker(t)
	mustShopImages(t, pool)
	cases := []struct {
		name   string
		launch func(l *container.Launch)
		// timeout bounds the start; 0 means waitLimit.
		timeout time.Duration
		want    []string
	}{
		{
			name:   "exits",
			launch: func(l *container.Launch) { l.Cmd = append(l.Cmd, "--no-such-flag") },
			want:   []string{"exited before it was ready (exit code 2)", "last output:", "no-such-flag"},
		},
		{
			name: "never-ready",
			launch: func(l *container.Launch) {
				l.ReadyPath = "/healthz"
				l.Cmd = []string{"--listen", "127.0.0.1:0", "--payments", "{{fakes.payments.url}}"}
				l.ReadyTimeout = 300 * time.Millisecond
			},
			want: []string{"not ready after 300ms", "expected a 2xx reply to GET http://127.0.0.1:", "the Docker engine must run on this machine"},
		},
		{
			// The shop answers 404 there: an answer, not readiness.
			name:   "wrong-ready-path",
			launch: func(l *container.Launch) { l.ReadyPath = "/no-such-page"; l.ReadyTimeout = 5 * time.Second },
			want:   []string{"not ready after 5s: GET http://127.0.0.1:", "/no-such-page answered 404 Not Found, not a 2xx"},
		},
		{
			name: "cancelled",
			launch: func(l *container.Launch) {
				l.Cmd = []string{"--listen", "127.0.0.1:0", "--payments", "{{fakes.payments.url}}"}
			},
			timeout: 300 * time.Millisecond,
			want:    []string{"start abandoned before it was ready", "context deadline exceeded"},
		},
		{
			name:   "no-image",
			launch: func(l *container.Launch) { l.Image = "idemcheck-test/no-such-image:none" },
			want:   []string{`image "idemcheck-test/no-such-image:none" is not in the Docker engine`, "never pulls"},
		},
		{
			name:   "bad-template",
			launch: func(l *container.Launch) { l.Cmd = append(l.Cmd, "{{fakes.email.url}}") },
			want:   []string{"container cmd", "fakes.email.url"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			timeout := tc.timeout
			if timeout == 0 {
				timeout = waitLimit
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			launch := shopLaunch("correct")
			tc.launch(&launch)
			name := "ctr-fail-" + tc.name
			spec := container.Spec(examples.ShopConfig(name, true), launch, examples.PaymentsFake)
			_, err := spec.Start(ctx, fakeEnv(t, "startfail"+tc.name))
			require.Error(t, err)
			t.Log(err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Empty(t, leftovers(t, pool, name), "a failed start leaves no container")
		})
	}
}

// BenchmarkCrashRestart measures what one crash fault costs on a container
// target: docker kill and the wait until it has stopped, then starting the
// same container and the wait until it answers.
func BenchmarkCrashRestart(b *testing.B) {
	pool := mustDocker(b)
	mustShopImages(b, pool)
	ctx := context.Background()
	tg, err := shopSpec("ctr-bench", "correct").Start(ctx, fakeEnv(b, "benchcrash00001"))
	require.NoError(b, err)
	defer tg.Close()
	target := tg.(*container.Target)
	var kill time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		require.NoError(b, target.Kill())
		kill += time.Since(start)
		require.NoError(b, target.Restart(ctx))
	}
	b.ReportMetric(float64(kill.Milliseconds())/float64(b.N), "kill-ms/op")
}
