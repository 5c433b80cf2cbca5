package http_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// lateRun runs retry.late alone against newHandler with a late delay of
// delay and returns the target's result, and how long after its intent
// succeeded the first intent's late retry was sent, on the wall clock.
func lateRun(t *testing.T, newHandler httptarget.NewHandler, delay time.Duration) (record.TargetResult, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := httptarget.HandlerSpec(dryRunConfig, newHandler, payments.Starter(payments.Options{}))
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(1), harness.WithLateRetry(8, delay),
		harness.WithChecks(harness.CheckRetryLate))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	var after time.Duration
	for _, in := range tr.Record.Intents {
		if in.Role != record.RoleLate || len(in.Attempts) < 2 {
			continue
		}
		ok := in.FirstOK()
		require.NotNil(t, ok)
		after = max(after, in.Attempts[len(in.Attempts)-1].Start.Sub(ok.End))
	}
	return tr, after
}

// TestLateRetryOnTheHandlersClock: a handler whose key store reads the
// time from env.Now sees a late retry's delay pass without the check
// waiting for it: a store that forgets keys after 30 s is found with a
// delay of a minute, the late retries sent long before a minute passed on
// the wall clock, and one that keeps them a day is not. A store on
// time.Now is waited for, and found all the same.
func TestLateRetryOnTheHandlersClock(t *testing.T) {
	const delay = time.Minute
	forgets, after := lateRun(t, newShopExpiring(30*time.Second, true, true), delay)
	assert.Less(t, after, delay, "the check waited on the wall clock")
	require.Len(t, forgets.Findings, 1, "a key kept 30 s (by env.Now) is forgotten a minute later")
	assert.Equal(t, harness.CheckRetryLate, forgets.Findings[0].Check)
	assert.Contains(t, forgets.Findings[0].Message, "at least 1m0s")

	keeps, after := lateRun(t, newShopExpiring(24*time.Hour, true, true), delay)
	assert.Less(t, after, delay, "the check waited on the wall clock")
	assert.Empty(t, keeps.Findings, "a key kept a day (by env.Now) is kept a minute later")
	// What the clock's move could not show is said: a store on time.Now
	// beside a handler that reads env.Now would not have seen it.
	clock := func(tr record.TargetResult) []record.Unexamined {
		var out []record.Unexamined
		for _, u := range tr.NotExamined {
			if u.Cause == record.CauseClock {
				out = append(out, u)
			}
		}
		return out
	}
	if moved := clock(keeps); assert.Len(t, moved, 1) {
		assert.Equal(t, harness.CheckRetryLate, moved[0].Check)
		assert.Contains(t, moved[0].Reason, "a key store that keeps time by time.Now would not have seen it pass")
	}

	// On time.Now the store's time is its own: the delay is waited.
	const short = 300 * time.Millisecond
	wall, after := lateRun(t, newShopExpiring(100*time.Millisecond, false, true), short)
	assert.GreaterOrEqual(t, after, short, "the delay passed on the wall clock")
	require.Len(t, wall.Findings, 1, "a key kept 100 ms (by time.Now) is forgotten 300 ms later")
	assert.Equal(t, harness.CheckRetryLate, wall.Findings[0].Check)
	assert.Empty(t, clock(wall), "waited on the wall clock: nothing to say")
}
