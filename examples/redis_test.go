package examples_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
)

// startRedis starts a real redis-server on a free loopback port, with its
// files in a temporary directory and no persistence, and stops it when
// the test ends. It skips the test, saying why, without redis-server.
func startRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (Debian: apt-get install redis-server); the Redis reference targets need a real Redis")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--bind", "127.0.0.1", "--port", port, "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	// Wait for the event, with a deadline: redis-server says when it is
	// ready to accept connections.
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatalf("redis-server on %s did not say it was ready within 20s", addr)
	}
	return addr
}

func verifyRedisShop(t *testing.T, profile, addr string, opts ...harness.Option) harness.TargetResult {
	t.Helper()
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.RedisShopSpec(exe, profile, addr)}, opts...)
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	for _, f := range tr.Findings {
		t.Logf("%s %s %s: %s", f.Severity, f.Check, f.Fault, f.Message)
	}
	return tr
}

// TestSameSeedTwiceOnASurvivingStore: Redis keeps the keys of the first
// run; a second run with the same seed makes the same choices with keys
// of its own, so it gets the same verdicts (3, nothing found). Pinning
// both runs to one nonce — what keys that depend only on the seed did —
// shows what the nonce prevents: the second run's requests meet the first
// run's stored replies, and correct replays are judged lost intents (or,
// with no effect of its own at all, the run cannot be judged).
func TestSameSeedTwiceOnASurvivingStore(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	for run := 1; run <= 2; run++ {
		tr := verifyRedisShop(t, "redis-correct", addr, harness.WithSeed(42))
		assert.Equal(t, 3, tr.Score.Level, "run %d: %s", run, tr.Score.Reason)
		assert.Empty(t, tr.Findings, "run %d", run)
	}
	pinned := []harness.Option{harness.WithSeed(43), harness.WithNonce(43)}
	first := verifyRedisShop(t, "redis-correct", addr, pinned...)
	require.Empty(t, first.Findings)
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.RedisShopSpec(exe, "redis-correct", addr)}, pinned...)
	require.NoError(t, err)
	second := res.Targets[0]
	assert.True(t, second.Error != "" || len(second.Findings) > 0,
		"the same keys again meet the first run's stored replies: not the first run's verdict (error %q, %d findings)", second.Error, len(second.Findings))
}

// TestRedisCheckThenSet: the textbook GET, SET in_progress, work, SET
// result on a real Redis scores 0; the crash leaves the key in progress.
func TestRedisCheckThenSet(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	tr := verifyRedisShop(t, "redis-check-then-set", addr, harness.WithSeed(7))
	assert.Equal(t, 0, tr.Score.Level, tr.Score.Reason)
	assert.Contains(t, failing(tr), harness.CheckCrashRecovery)
	t.Logf("failing: %v", failing(tr))
}

// TestUUIDKeysWithoutKeyFormat: a shop that accepts only UUID keys cannot
// be tested with idemcheck's default keys, and is told which key format
// to set; with key_format uuid it scores 3 (TestReferenceTargets).
func TestUUIDKeysWithoutKeyFormat(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	spec := examples.ShopSpec(exe, "uuid-keys")
	spec.KeyFormat = keys.MustParse(keys.Token)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7))
	require.NoError(t, err)
	msg := res.Targets[0].Error
	require.NotEmpty(t, msg, "no keyed request ever succeeds")
	assert.Contains(t, msg, "set key_format", msg)
	assert.Contains(t, msg, "uuid", msg)
	fmt.Println(msg)
}

// TestRedisRaceCaughtOnEverySeed: the textbook check-then-set on a real
// Redis is caught by concurrent.duplicates's default bursts on every one of
// 20 seeds; the share of bursts that duplicated is logged (and written in
// the README).
func TestRedisRaceCaughtOnEverySeed(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	dupBursts, bursts := 0, 0
	for seed := 1; seed <= seeds; seed++ {
		tr := verifyRedisShopQuiet(t, "redis-check-then-set", addr, harness.WithSeed(uint64(seed)), harness.WithChecks(harness.CheckConcurrentDuplicates))
		caught := false
		for _, in := range tr.Record.Intents {
			if in.Role != record.RoleBurst {
				continue
			}
			bursts++
			if len(tr.Record.EffectsOf(&in)) > 1 {
				dupBursts++
			}
		}
		for _, f := range tr.Findings {
			if f.Check == harness.CheckConcurrentDuplicates && f.Severity == record.Critical {
				caught = true
				t.Logf("seed %d: %s", seed, f.Message)
			}
		}
		assert.True(t, caught, "seed %d: the race was not caught", seed)
	}
	t.Logf("%d seeds: %d of %d bursts duplicated (%.0f%%)", seeds, dupBursts, bursts, 100*float64(dupBursts)/float64(max(bursts, 1)))
}

func verifyRedisShopQuiet(t *testing.T, profile, addr string, opts ...harness.Option) harness.TargetResult {
	t.Helper()
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.RedisShopSpec(exe, profile, addr)}, opts...)
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	require.NotNil(t, tr.Record)
	return tr
}

func verifyScaledShop(t *testing.T, profile, addr string, replicas int, opts ...harness.Option) harness.TargetResult {
	t.Helper()
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.ScaledRedisShopSpec(exe, profile, addr, replicas)}, opts...)
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	for _, f := range tr.Findings {
		t.Logf("%d replicas: %s %s %s: %s", replicas, f.Severity, f.Check, f.Fault, f.Message)
	}
	return tr
}

// TestProcessLockScaledOut: a mutex held in the process around a
// check-then-claim on a shared Redis is correct as one instance (3, no
// finding) and duplicates charges as soon as two instances share the
// store: the bursts split across the instances race the two mutexes.
func TestProcessLockScaledOut(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	one := verifyScaledShop(t, "redis-process-lock", addr, 1, harness.WithSeed(11))
	assert.Equal(t, 3, one.Score.Level, one.Score.Reason)
	assert.Empty(t, one.Findings)

	two := verifyScaledShop(t, "redis-process-lock", addr, 2, harness.WithSeed(11))
	assert.Less(t, two.Score.Level, 3, two.Score.Reason)
	caught := false
	for _, f := range two.Findings {
		if f.Check == harness.CheckConcurrentDuplicates && f.Severity == record.Critical {
			caught = true
		}
	}
	assert.True(t, caught, "two instances: the duplicated charges of a split burst are reported")
}

// TestAtomicClaimScaledOut: one SET NX per claim, the key passed
// downstream, and a claim of a live instance answered 409: correct with
// two instances as with one (3, no finding).
func TestAtomicClaimScaledOut(t *testing.T) {
	t.Parallel()
	addr := startRedis(t)
	tr := verifyScaledShop(t, "redis-correct", addr, 2, harness.WithSeed(11))
	assert.Equal(t, 3, tr.Score.Level, tr.Score.Reason)
	assert.Empty(t, tr.Findings)
}
