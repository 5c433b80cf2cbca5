package http

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimiterWithoutLimitsIsNone: a local target is never held back.
func TestLimiterWithoutLimitsIsNone(t *testing.T) {
	l := newLimiter(Limits{}, 20)
	assert.Nil(t, l)
	assert.NoError(t, l.take(context.Background(), 1000))
}

// TestLimiterBudget: requests are counted, and the request that would go
// past the budget is refused at once, with ErrBudget, which stays.
func TestLimiterBudget(t *testing.T) {
	l := newLimiter(Limits{Requests: 5}, 20)
	require.NoError(t, l.take(context.Background(), 3))
	err := l.take(context.Background(), 3)
	var budget *ErrBudget
	require.ErrorAs(t, err, &budget, "3 more would make 6 of 5")
	assert.Equal(t, 5, budget.Requests)
	assert.Contains(t, err.Error(), "limits.requests")
	assert.Equal(t, 3, l.sent, "the refused requests are not counted")
	assert.Equal(t, err, l.spent)
	require.NoError(t, l.take(context.Background(), 2), "what is left of the budget may still be sent")
}

// TestLimiterRate: the bucket starts full (a second's worth, or a whole
// burst if that is more), then a request waits for a token: with a
// context that has ended, it returns the context's error instead.
func TestLimiterRate(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()

	l := newLimiter(Limits{PerSecond: 1}, 3)
	require.NoError(t, l.take(ended, 3), "a full bucket lets a burst of 3 through without waiting")
	err := l.take(ended, 1)
	assert.True(t, errors.Is(err, context.Canceled), "an empty bucket makes the next request wait: %v", err)

	l = newLimiter(Limits{PerSecond: 1}, 3)
	require.NoError(t, l.take(ended, 1))
	err = l.take(ended, 5)
	assert.True(t, errors.Is(err, context.Canceled), "a burst larger than the bucket waits for a full one: %v", err)

	// A fast rate: the request that finds the bucket empty waits a
	// millisecond for its token, and is then let through.
	l = newLimiter(Limits{PerSecond: 1000}, 1)
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	require.NoError(t, l.take(ctx, 1000))
	require.NoError(t, l.take(ctx, 1))
	require.NoError(t, l.take(ctx, 2000), "a burst larger than the bucket goes once it is full")
	assert.Equal(t, 3001, l.sent)
}
