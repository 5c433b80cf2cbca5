package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/record"
)

// TestResultFailed: a result failed when any target could not be tested.
func TestResultFailed(t *testing.T) {
	assert.False(t, (&record.Result{Targets: []record.TargetResult{{Name: "a"}}}).Failed())
	assert.True(t, (&record.Result{Targets: []record.TargetResult{{Name: "a"}, {Name: "b", Error: "boom"}}}).Failed())
}

// TestSeverityRank: the severities rank from the worst, and anything else
// below them all.
func TestSeverityRank(t *testing.T) {
	assert.Greater(t, record.Critical.Rank(), record.Major.Rank())
	assert.Greater(t, record.Major.Rank(), record.Minor.Rank())
	assert.Greater(t, record.Minor.Rank(), record.Severity("").Rank())
	assert.Equal(t, 0, record.Severity("fatal").Rank(), "not a severity")
}

// TestFindingKey: two findings of one check, operation and fault are the
// same finding across runs, whatever their messages; another fault makes
// another finding.
func TestFindingKey(t *testing.T) {
	a := record.Finding{Check: "retry.after-fault", Operation: "charge", Fault: "lost-response", Severity: record.Critical, Message: "key k1"}
	b := a
	b.Message, b.Severity = "key k2", record.Major
	assert.Equal(t, a.Key().ID(), b.Key().ID())
	c := a
	c.Fault = "reset"
	assert.NotEqual(t, a.Key().ID(), c.Key().ID())
	assert.Equal(t, "retry.after-fault charge [lost-response]", a.Key().String())

	d := &record.TargetDiff{New: []record.FindingKey{c.Key()}}
	assert.True(t, d.IsNew(c))
	assert.False(t, d.IsNew(a), "a finding the baseline had is not new")
}
