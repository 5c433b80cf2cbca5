package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// lateWhy names the late effect only when the intent's first effect
// since the attempt came after it ended (after the ledger was read at
// its end, or, by a fake, after its answer) and before its next attempt.
func TestLateWhy(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := &record.Record{Intents: []record.Intent{
		{ID: 1, Marker: "m1", Attempts: []record.Attempt{{N: 1, LedgerBefore: 0, LedgerAfter: 0}}},
		{ID: 2, Marker: "m2", Attempts: []record.Attempt{{N: 1, LedgerBefore: 1, LedgerAfter: 1}, {N: 2, LedgerBefore: 1, LedgerAfter: 2}}},
		{ID: 3, Marker: "m3", Attempts: []record.Attempt{{N: 1, LedgerBefore: 2, LedgerAfter: 3}}},
		{ID: 4, Marker: "m4", Attempts: []record.Attempt{{N: 1, LedgerBefore: 3, LedgerAfter: 3}}},
		{ID: 6, Marker: "m6", Attempts: []record.Attempt{{N: 1, LedgerBefore: 3, LedgerAfter: 4, End: t0}}},
		{ID: 7, Marker: "m7", Attempts: []record.Attempt{{N: 1, LedgerBefore: 4, LedgerAfter: 5, End: t0}}},
		{ID: 8, Marker: "m8", Attempts: []record.Attempt{{N: 1, LedgerBefore: 5, LedgerAfter: 6, End: t0}}},
	}}
	effects := []fakes.Effect{
		{Seq: 1, Markers: []string{"m1"}},                                                  // after intent 1's only attempt
		{Seq: 2, Markers: []string{"m2"}},                                                  // during intent 2's second attempt
		{Seq: 3, Markers: []string{"m3"}},                                                  // during intent 3's attempt
		{Seq: 4, Fake: "payments", At: t0.Add(time.Millisecond), Markers: []string{"m6"}},  // by a fake, after the answer
		{Seq: 5, Fake: "orders-db", At: t0.Add(time.Millisecond), Markers: []string{"m7"}}, // by an observer, after the answer
		{Seq: 6, Fake: "payments", At: t0.Add(-time.Millisecond), Markers: []string{"m8"}}, // by a fake, before the answer
	}
	why := lateWhy(rec, effects, map[string]bool{"payments": true})
	assert.Equal(t, unfiredLate, why(1, 1))
	assert.Empty(t, why(2, 1), "the effect came with the retry, which may have made it")
	assert.Empty(t, why(3, 1), "the effect came while the attempt ran")
	assert.Empty(t, why(4, 1), "no effect at all")
	assert.Empty(t, why(5, 1), "no such intent")
	assert.Empty(t, why(1, 2), "no such attempt")
	assert.Equal(t, unfiredLate, why(6, 1), "a fake's effect after the answer")
	assert.Empty(t, why(7, 1), "an observer reads effects after the answer")
	assert.Empty(t, why(8, 1), "a fake's effect before the answer")
}
