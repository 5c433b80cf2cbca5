package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/faults"
)

// TestStuckDeadlineCoversTheFaultsHold: "in progress" answers are waited
// out for the stuck wait after a fault that holds nothing of the
// target's work, and for the stuck wait plus the hold after one that
// does (a stalled database statement), however the hold compares with
// the stuck wait.
func TestStuckDeadlineCoversTheFaultsHold(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wait := time.Second
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, nil))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, &faults.Reset{}))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, &faults.DepError{}))
	for _, delay := range []time.Duration{300 * time.Millisecond, time.Second, 3 * time.Second} {
		stall := &faults.DepStall{Delay: faults.Duration(delay)}
		assert.Equal(t, now.Add(wait+delay), stuckDeadline(now, wait, stall), "a stall of %v", delay)
	}
}
