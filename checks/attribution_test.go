package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttribution: a run whose acknowledged intents left no effect anyone
// recorded is untestable, not a score of 0 with a critical finding per
// intent; a run where some effects carry no marker says how many.
func TestAttribution(t *testing.T) {
	t.Run("acknowledged intents and an empty ledger: untestable, not judged", func(t *testing.T) {
		b := newRec()
		for range 3 {
			i := b.intent(plain, opCharge)
			b.try(i, ok(201, "created", "ord_1")).try(i, ok(201, "noop", "ord_1"))
		}
		tr := scored(t, b.done())
		assert.Contains(t, tr.Error, "no effect could be attributed: the target acknowledged 3 mutating intents")
		assert.Contains(t, tr.Error, "observe:")
		assert.Empty(t, tr.Findings, "an untestable record is not judged")
	})
	t.Run("one lost intent among attributed ones is a finding, not untestable", func(t *testing.T) {
		b := cleanRecord()
		b.try(b.intent(plain, opCharge), ok(201, "created", "ord_9"))
		tr := scored(t, b.done())
		assert.Empty(t, tr.Error)
		assert.Equal(t, 0, tr.Score.Level)
		assert.NotEmpty(t, tr.Findings)
	})
	t.Run("refused calls only: nothing was acknowledged, so nothing is missing", func(t *testing.T) {
		b := newRec()
		i := b.intent(noKey, opCharge)
		b.try(i, failed(400)).try(i, failed(400))
		tr := scored(t, b.done())
		assert.NotContains(t, tr.Error, "no effect could be attributed")
	})
	t.Run("some effects unmarked: the score says how many", func(t *testing.T) {
		b := cleanRecord()
		b.try(b.intent(plain, opCharge), ok(201, "created", "ord_8"), mine(), unmarked())
		tr := scored(t, b.done())
		assert.Empty(t, tr.Error)
		assert.Contains(t, tr.Score.Reason, ". Note: 1 of 7 recorded effects carried no intent marker and could not be attributed")
	})
	t.Run("every effect marked: nothing said", func(t *testing.T) {
		tr := scored(t, cleanRecord().done())
		assert.Equal(t, 3, tr.Score.Level)
		assert.NotContains(t, tr.Score.Reason, "no intent marker")
	})
}
