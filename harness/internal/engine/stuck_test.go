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
// target's work, and until the stuck wait after the hold has surely
// ended (the hold's length after the attempt's end, when the client left)
// when an attempt's fault held it (a stalled database statement),
// whichever attempt it was and however the hold compares with the stuck
// wait; a stall that never fired holds nothing.
func TestStuckDeadlineCoversTheFaultsHold(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wait := time.Second
	stall := &faults.DepStall{Delay: faults.Duration(3 * time.Second)}
	fs := []faults.Fault{&faults.Reset{}, &faults.DepError{}, stall}
	intent := func(as ...record.Attempt) *record.Intent { return &record.Intent{Attempts: as} }
	// at is an attempt that started ago+took before now and ended ago
	// before it.
	at := func(ago, took time.Duration, fault string) record.Attempt {
		return record.Attempt{Start: now.Add(-ago - took), End: now.Add(-ago), Fault: fault}
	}
	const ms = time.Millisecond

	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(), fs))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(0, ms, faults.NameReset), at(0, ms, "")), fs))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(0, ms, faults.NameDepError)), fs))

	assert.Equal(t, now.Add(3*time.Second+wait), stuckDeadline(now, wait, intent(at(0, ms, faults.NameDepStall)), fs))
	assert.Equal(t, now.Add(3*time.Second+wait), stuckDeadline(now, wait, intent(at(0, 800*ms, faults.NameDepStall)), fs),
		"the hold began when the client left, however long the target took to reach the database")
	assert.Equal(t, now.Add(2*time.Second+wait), stuckDeadline(now, wait, intent(at(time.Second, ms, faults.NameDepStall), at(0, ms, "")), fs),
		"a retry step after the stalled attempt still waits for the stall's end")
	assert.Equal(t, now.Add(2*time.Second+wait),
		stuckDeadline(now, wait, intent(at(2*time.Second, ms, faults.NameReset), at(time.Second, ms, faults.NameDepStall), at(0, ms, "")), fs),
		"a stall met by a later attempt of the intent holds as one met by its first")
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(10*time.Second, ms, faults.NameDepStall)), fs),
		"a stall long over holds nothing more")
	unfired := at(0, ms, faults.NameDepStall)
	unfired.NotFired = true
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(unfired), fs))
	assert.Equal(t, now.Add(wait), stuckDeadline(now, wait, intent(at(0, ms, faults.NameDepStall)), nil),
		"a fault the run was not given is not known to hold anything")
}
