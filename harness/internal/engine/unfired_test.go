package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// lateWhy names the late effect only when the intent's first effect
// since the attempt came after it ended and before its next attempt.
func TestLateWhy(t *testing.T) {
	rec := &record.Record{Intents: []record.Intent{
		{ID: 1, Marker: "m1", Attempts: []record.Attempt{{N: 1, LedgerBefore: 0, LedgerAfter: 0}}},
		{ID: 2, Marker: "m2", Attempts: []record.Attempt{{N: 1, LedgerBefore: 1, LedgerAfter: 1}, {N: 2, LedgerBefore: 1, LedgerAfter: 2}}},
		{ID: 3, Marker: "m3", Attempts: []record.Attempt{{N: 1, LedgerBefore: 2, LedgerAfter: 3}}},
		{ID: 4, Marker: "m4", Attempts: []record.Attempt{{N: 1, LedgerBefore: 3, LedgerAfter: 3}}},
	}}
	effects := []fakes.Effect{
		{Seq: 1, Markers: []string{"m1"}}, // after intent 1's only attempt
		{Seq: 2, Markers: []string{"m2"}}, // during intent 2's second attempt
		{Seq: 3, Markers: []string{"m3"}}, // during intent 3's attempt
	}
	why := lateWhy(rec, effects)
	assert.Equal(t, unfiredLate, why(1, 1))
	assert.Empty(t, why(2, 1), "the effect came with the retry, which may have made it")
	assert.Empty(t, why(3, 1), "the effect came while the attempt ran")
	assert.Empty(t, why(4, 1), "no effect at all")
	assert.Empty(t, why(5, 1), "no such intent")
	assert.Empty(t, why(1, 2), "no such attempt")
}
