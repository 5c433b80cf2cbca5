package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
)

// TestCleanedOnceOnly: a result already cleaned (by Redact) is not
// transformed again for each report, and what a report writes to its copy
// (the gate) does not reach the result it was given.
func TestCleanedOnceOnly(t *testing.T) {
	raw := &record.Result{Targets: []record.TargetResult{{Name: "t", Error: "bad \x1b[31mred\x1b[0m sk_live_" + "0123456789abcdefghijklmn"}}}
	red := Redact(raw, []string{"secret-value"})
	require.NotContains(t, red.Targets[0].Error, "\x1b")
	require.NotContains(t, red.Targets[0].Error, "sk_live_0123")
	again := cleaned(red)
	assert.Equal(t, red.Targets, again.Targets, "cleaning a clean result changes nothing")
	assert.NotSame(t, red, again)
	assert.True(t, clean.has(again), "its copy is known clean too")
	g := withGate(again, Options{MinScore: 3})
	require.NotNil(t, g.Gate)
	assert.Nil(t, red.Gate, "the gate a report applies stays on its copy")
	assert.Nil(t, red.Targets[0].Gate)
	assert.False(t, clean.has(raw), "a result as the harness made it is not known clean")
}
