package http_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// inBubble runs f in a bubble of testing/synctest and returns how long it
// took on the wall clock.
func inBubble(t *testing.T, f func(t *testing.T)) time.Duration {
	t.Helper()
	start := time.Now()
	synctest.Test(t, f)
	return time.Since(start)
}

// findingChecks is the sorted set of checks a target's findings name.
func findingChecks(tr record.TargetResult) []string {
	var ids []string
	for _, f := range tr.Findings {
		if !slices.Contains(ids, f.Check) {
			ids = append(ids, f.Check)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestCheckHandlerInASynctestBubble: inside a bubble of testing/synctest a
// check's waits pass on the bubble's clock, at once, and a key store on
// time.Now sees them pass: a store that forgets keys after 30 s is found
// by a late retry a minute on, one that keeps them a day is not, and
// neither check waits a minute of wall time. Nothing says the expiry went
// unexamined: both clocks moved.
func TestCheckHandlerInASynctestBubble(t *testing.T) {
	t.Parallel()
	const delay = time.Minute
	var forgets, keeps record.TargetResult
	var forgetsAfter, keepsAfter time.Duration
	took := inBubble(t, func(t *testing.T) {
		forgets, forgetsAfter = lateRun(t, newShopExpiring(30*time.Second, false, true), delay)
		keeps, keepsAfter = lateRun(t, newShopExpiring(24*time.Hour, false, true), delay)
	})
	assert.Less(t, took, delay, "the checks waited on the wall clock")
	assert.GreaterOrEqual(t, forgetsAfter, delay, "the late retry came a minute on, on the bubble's clock")
	assert.GreaterOrEqual(t, keepsAfter, delay)

	require.Len(t, forgets.Findings, 1, "a key kept 30 s (by time.Now) is forgotten a minute later")
	assert.Equal(t, harness.CheckRetryLate, forgets.Findings[0].Check)
	assert.Contains(t, forgets.Findings[0].Message, "at least 1m0s")
	assert.Empty(t, keeps.Findings, "a key kept a day (by time.Now) is kept a minute later")
	for _, tr := range []record.TargetResult{forgets, keeps} {
		for _, u := range tr.NotExamined {
			assert.NotEqual(t, record.CauseClock, u.Cause, "the bubble's clock moved for time.Now too: %s", u.Reason)
		}
	}
}

// A check in a bubble reaches the same verdict as outside it, on the same
// seed: every default check and generated trials, on the careful handler
// (nothing found) and on the careless one (the same checks fail).
func TestCheckHandlerInABubbleJudgesAsOutside(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		careless bool
	}{{"careful", false}, {"careless", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			verify := func(t *testing.T) record.TargetResult {
				spec := httptarget.HandlerSpec(dryRunConfig, newShop(tc.careless), payments.Starter(payments.Options{}))
				res, err := harness.Verify(t.Context(), []harness.Spec{spec}, harness.WithSeed(3), harness.WithTrials(20),
					harness.WithLateRetry(16, 200*time.Millisecond))
				require.NoError(t, err)
				require.Empty(t, res.Targets[0].Error)
				return res.Targets[0]
			}
			outside := verify(t)
			var inside record.TargetResult
			inBubble(t, func(t *testing.T) { inside = verify(t) })
			assert.Equal(t, outside.Score.Level, inside.Score.Level)
			assert.Equal(t, findingChecks(outside), findingChecks(inside))
			if tc.careless {
				assert.Contains(t, findingChecks(inside), harness.CheckRetryLate, "the careless handler charges a late retry again")
			} else {
				assert.Empty(t, inside.Findings)
			}
		})
	}
}

// In a bubble the handler and the fakes take no connection over TCP (a
// goroutine blocked on a socket would hold the bubble's clock): a dial to
// the handler's loopback address is refused at once, not left hanging,
// while the harness's client reaches it in memory. The email fake, whose
// SMTP port is TCP alone, starts and stops there too.
func TestHandlerInABubbleRefusesTCP(t *testing.T) {
	t.Parallel()
	inBubble(t, func(t *testing.T) {
		spec := httptarget.HandlerSpec(dryRunConfig, newShop(false), payments.Starter(payments.Options{}), email.Starter(email.Options{}))
		var dialErr error
		var fakeURL string
		spec.Start = wrapStart(spec.Start, func(env *harness.Env, tg harness.Target) {
			addr := tg.(*httptarget.Target).BaseURL()[len("http://"):]
			var c net.Conn
			c, dialErr = net.Dial("tcp", addr)
			if c != nil {
				_ = c.Close()
			}
			fakeURL = env.Fakes["payments"].URL()
		})
		res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithSeed(1),
			harness.WithChecks(harness.CheckRetrySequential))
		require.NoError(t, err)
		require.Empty(t, res.Targets[0].Error)
		assert.Empty(t, res.Targets[0].Findings)
		assert.True(t, errors.Is(dialErr, syscall.ECONNREFUSED), "a dial over TCP is refused: %v", dialErr)
		assert.NotEmpty(t, fakeURL)
	})
}

// wrapStart calls then with the started target and its environment.
func wrapStart(start func(context.Context, *harness.Env) (harness.Target, error), then func(*harness.Env, harness.Target)) func(context.Context, *harness.Env) (harness.Target, error) {
	return func(ctx context.Context, env *harness.Env) (harness.Target, error) {
		tg, err := start(ctx, env)
		if err == nil {
			then(env, tg)
		}
		return tg, err
	}
}

// CheckHandler itself runs inside a bubble, on the test's own *testing.T
// (no subtest may start there: the checks are reported on t), and a
// handler that implements io.Closer is closed with each instance: its
// sweeper goroutine, which would otherwise outlive the bubble, ends.
func TestCheckHandlerInsideSynctestTest(t *testing.T) {
	t.Parallel()
	var closed atomic.Int32
	synctest.Test(t, func(t *testing.T) {
		httptarget.CheckHandlerConfig(t, dryRunConfig, func(env *harness.Env) http.Handler {
			return newSweptShop(newShop(false)(env), &closed)
		}, harness.WithSeed(1), harness.WithTrials(20))
	})
	assert.GreaterOrEqual(t, closed.Load(), int32(2), "the probes' instance and the trials' each closed")

	// A careless handler fails there as it does elsewhere, its findings
	// reported on the TB itself.
	rec := &checkRecorder{}
	synctest.Test(t, func(t *testing.T) {
		httptarget.CheckHandlerConfig(rec, dryRunConfig, newShop(true), harness.WithSeed(1), harness.WithTrials(-1))
	})
	assert.True(t, rec.Failed())
	assert.Contains(t, strings.Join(rec.errors, "\n"), "retry.sequential")
}

// A handler in a bubble that calls the fakes over TCP is told why it
// could not be tested, and what to do.
func TestCheckHandlerInABubbleSaysHowToReachTheFakes(t *testing.T) {
	t.Parallel()
	rec := &checkRecorder{}
	synctest.Test(t, func(t *testing.T) {
		httptarget.CheckHandlerConfig(rec, dryRunConfig, func(env *harness.Env) http.Handler {
			h := newShop(false)(env).(*shopHandler)
			h.client = &http.Client{} // over TCP, not env.HTTPClient()
			return h
		}, harness.WithSeed(1), harness.WithTrials(-1))
	})
	require.True(t, rec.Failed())
	msg := strings.Join(rec.errors, "\n")
	assert.Contains(t, msg, "idemcheck could not test shop: in a bubble of testing/synctest the handler and the fakes take no connection over TCP, only in memory: first see that the handler calls the fakes with env.HTTPClient()")
	assert.Contains(t, msg, "what the run saw: charge never succeeded")
}

// sweptShop is a handler with a goroutine of its own (a sweeper of
// expired keys, here idle) that Close ends.
type sweptShop struct {
	http.Handler
	stop   chan struct{}
	done   chan struct{}
	closed *atomic.Int32
}

func newSweptShop(h http.Handler, closed *atomic.Int32) *sweptShop {
	s := &sweptShop{Handler: h, stop: make(chan struct{}), done: make(chan struct{}), closed: closed}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-s.stop:
				return
			}
		}
	}()
	return s
}

func (s *sweptShop) Close() error {
	close(s.stop)
	<-s.done
	s.closed.Add(1)
	return nil
}
