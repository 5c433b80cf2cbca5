package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestHangFindingNamesTheFirstFault: a trial after which the target
// stopped answering is reported under retry.after-fault with the first
// fault its intents met, whichever attempt met it (a step under a fault
// that reuses an earlier step's key adds a faulted attempt to an intent
// whose first attempt was clean).
func TestHangFindingNamesTheFirstFault(t *testing.T) {
	t.Parallel()
	rec := &record.Record{Intents: []record.Intent{{
		ID: 1, Operation: "pay",
		Attempts: []record.Attempt{
			{N: 1, Reply: record.Reply{Outcome: record.OK, Status: 201}},
			{N: 2, Fault: faults.NameDownstreamFailAfter, Reply: record.Reply{Outcome: record.Info, Status: 503}},
			{N: 3, Reply: record.Reply{Outcome: record.Info, Error: "the target never answered"}},
		},
	}}}
	f := hangFinding(rec, &hangError{msg: "the target stopped answering: 3 attempts got no reply"})
	assert.Equal(t, checks.CheckRetryAfterFault, f.Check)
	assert.Equal(t, faults.NameDownstreamFailAfter, f.Fault)
	assert.Equal(t, "pay", f.Operation)
}
