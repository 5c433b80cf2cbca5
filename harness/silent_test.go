package harness_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// silentTarget never answers: every call ends as a client timeout would,
// with no status. After answerFirst calls it does; before, it is silent.
type silentTarget struct {
	calls       atomic.Int64
	answerFirst bool
	// timedOut makes its silences timeouts (Reply.TimedOut), as an
	// adapter whose client gave up at its timeout reports them.
	timedOut bool
}

func (s *silentTarget) Info() harness.TargetInfo {
	return harness.TargetInfo{Name: "silent", Kind: "func", Operations: []harness.Operation{{Name: "create-order", Mutating: true}}}
}

func (s *silentTarget) Call(_ context.Context, c harness.Call) harness.Reply {
	if s.calls.Add(1) == 1 && s.answerFirst {
		return harness.Reply{Outcome: harness.OK, Status: 201, Forwarded: true, Effect: "created", HasEffect: true}
	}
	return harness.Reply{Outcome: harness.Info, Forwarded: true, Error: "no reply within 10s (the client gave up)", TimedOut: s.timedOut}
}

func (s *silentTarget) Supports(faults.Fault) bool { return true }
func (s *silentTarget) Close() error               { return nil }

func silentSpec(tg *silentTarget) harness.Spec {
	return harness.Spec{Name: "silent", Kind: "func", Start: func(context.Context, *harness.Env) (harness.Target, error) { return tg, nil }}
}

// TestSilentTargetIsUntestableAtOnce: a target that never answers is
// declared untestable after a few attempts, saying how long it waited,
// instead of costing every probe its timeout.
func TestSilentTargetIsUntestableAtOnce(t *testing.T) {
	t.Parallel()
	tg := &silentTarget{}
	tr := verifyOne(t, silentSpec(tg))
	assert.Contains(t, tr.Error, "never answered")
	assert.Contains(t, tr.Error, "of waiting in all")
	// Three unfaulted attempts without a reply; a faulted one on the way
	// does not count. Without the rule, every probe would run.
	assert.LessOrEqual(t, tg.calls.Load(), int64(5), "attempts made before giving up")
}

// TestTargetThatAnsweredOnceIsNotSilent: once a target has answered,
// later silences are the checks' to judge, not a reason to stop.
func TestTargetThatAnsweredOnceIsNotSilent(t *testing.T) {
	t.Parallel()
	tg := &silentTarget{answerFirst: true}
	tr := verifyOne(t, silentSpec(tg))
	assert.NotContains(t, tr.Error, "never answered")
	assert.Greater(t, tg.calls.Load(), int64(3))
}

// TestTargetThatStopsAnsweringIsUnresponsive: a target that answered once
// and then lets every attempt time out is declared unresponsive after a
// few in a row, instead of costing every probe its timeout.
func TestTargetThatStopsAnsweringIsUnresponsive(t *testing.T) {
	t.Parallel()
	tg := &silentTarget{answerFirst: true, timedOut: true}
	tr := verifyOne(t, silentSpec(tg))
	assert.Contains(t, tr.Error, "stopped answering")
	assert.Contains(t, tr.Error, "5 attempts in a row timed out")
	assert.LessOrEqual(t, tg.calls.Load(), int64(8), "attempts made before giving up")
}
