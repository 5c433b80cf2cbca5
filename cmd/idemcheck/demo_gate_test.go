package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/record"
)

// TestDemoGateSaysWhyAScoreMoved: a reference target that did not get the
// score it was built for fails the demo's gate with the score's reason,
// which names the check that made the difference; one that did passes.
func TestDemoGateSaysWhyAScoreMoved(t *testing.T) {
	res := &record.Result{Targets: []record.TargetResult{
		{Name: "moved", Score: record.ScoreResult{Level: 1, Reason: "fails dependency.recovery"}},
		{Name: "as-built", Score: record.ScoreResult{Level: 3, Reason: "passes every check"}},
	}}
	demoGate(res, 0, map[string]int{"moved": 3, "as-built": 3})
	assert.False(t, res.Gate.Met)
	assert.Equal(t, "moved: score 1, built for 3 (fails dependency.recovery)", res.Gate.Reason)
	assert.False(t, res.Targets[0].Gate.Met)
	assert.True(t, res.Targets[1].Gate.Met)
}
