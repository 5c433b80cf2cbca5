package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestPassSinceSaysWhetherItMovedTheClock: a wait that has passed on the
// wall clock already moves nothing (and a late retry's note that the
// clock was moved is not made); one that has not moves the clock on.
func TestPassSinceSaysWhetherItMovedTheClock(t *testing.T) {
	c := NewClock()
	assert.False(t, c.passSince(time.Now().Add(-time.Minute), time.Second), "a second passed long ago")
	start := time.Now()
	assert.True(t, c.passSince(start, time.Hour))
	assert.False(t, c.passSince(start, time.Minute), "an hour ahead already")
	assert.GreaterOrEqual(t, c.Now().Sub(start), time.Hour)
}
