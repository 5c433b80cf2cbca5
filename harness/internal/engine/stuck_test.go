package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestStuckDeadlineCoversTheFaultsHold: "in progress" answers are waited
// out for the stuck wait after attempts whose faults hold nothing of the
// target's work, and until the stuck wait after the hold ends when one
// attempt's fault held it (a stalled database statement), whichever
// attempt it was and however the hold compares with the stuck wait; a
// stall that never fired holds nothing.
func TestStuckDeadlineCoversTheFaultsHold(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wait := time.Second
	stall := &faults.DepStall{Delay: faults.Duration(3 * time.Second)}
	fs := []faults.Fault{&faults.Reset{}, &faults.DepError{}, stall}
	intent := func(as ...record.Attempt) *record.Intent { return &record.Intent{Attempts: as} }
	at := func(ago time.Duration, fault string) record.Attempt {
		return record.Attempt{Start: now.Add(-ago), Fault: fault}
	}

	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(), fs))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(0, faults.NameReset), at(0, "")), fs))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(0, faults.NameDepError)), fs))

	assert.Equal(t, now.Add(3*time.Second+wait), stuckDeadline(now, wait, intent(at(0, faults.NameDepStall)), fs))
	assert.Equal(t, now.Add(2*time.Second+wait), stuckDeadline(now, wait, intent(at(time.Second, faults.NameDepStall), at(0, "")), fs),
		"a retry step after the stalled attempt still waits for the stall's end")
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(10*time.Second, faults.NameDepStall)), fs),
		"a stall long over holds nothing more")
	unfired := at(0, faults.NameDepStall)
	unfired.NotFired = true
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(unfired), fs))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(0, faults.NameDepStall)), nil),
		"a fault the run was not given is not known to hold anything")
}
