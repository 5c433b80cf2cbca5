package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestDownFindingNamesTheFirstFaultsCheck: a trial after which the
// target's process had exited by itself is reported under the check that
// owns the first fault its intents met, saying how the process ended; a
// trial with no fault, under retry.sequential.
func TestDownFindingNamesTheFirstFaultsCheck(t *testing.T) {
	t.Parallel()
	down := &downError{msg: `the target stopped by itself, no fault having killed it (by the end of an attempt at pay): process "shop" (pid 7) exited by itself (exit status 2)`}
	rec := &record.Record{Intents: []record.Intent{{
		ID: 1, Operation: "pay",
		Attempts: []record.Attempt{
			{N: 1, Fault: faults.NameDepError, FaultClass: string(faults.ClassDependency), Reply: record.Reply{Outcome: record.Info, Status: 503}},
		},
	}}}
	f := downFinding(rec, down)
	assert.Equal(t, checks.CheckDependencyRecovery, f.Check)
	assert.Equal(t, faults.NameDepError, f.Fault)
	assert.Equal(t, record.Major, f.Severity)
	assert.Contains(t, f.Message, `pay: after this trial's steps the target stopped by itself, no fault having killed it (by the end of an attempt at pay): process "shop" (pid 7) exited by itself (exit status 2)`)

	rec.Intents[0].Attempts[0].Fault, rec.Intents[0].Attempts[0].FaultClass = "", ""
	f = downFinding(rec, down)
	assert.Equal(t, checks.CheckRetrySequential, f.Check)
	assert.Empty(t, f.Fault)

	// trialFindings keeps it as the trial's finding, not an error.
	s := &Session{ctx: context.Background()}
	fs, err := s.trialFindings(rec, down)
	require.NoError(t, err)
	require.NotEmpty(t, fs)
	assert.Contains(t, fs[len(fs)-1].Message, "stopped by itself")
}
