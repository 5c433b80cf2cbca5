package harness_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// wedgeShop charges on every call, key or not (a flaw the probes find),
// and a call whose client gives up leaves a lock held for ever: every
// call after it waits on that lock until its client gives up too.
type wedgeShop struct {
	mu     sync.Mutex
	ledger *fakes.Ledger
	n      int
	wedged bool
}

func (s *wedgeShop) Info() harness.TargetInfo {
	return harness.TargetInfo{Name: "wedge", Kind: "func", Operations: []harness.Operation{{
		Name: "charge", Mutating: true, Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 1 << 30}},
	}}}
}

func (s *wedgeShop) Supports(f faults.Fault) bool { return f.Name() == faults.NameClientTimeout }
func (s *wedgeShop) Close() error                 { return nil }

func (s *wedgeShop) Call(_ context.Context, c harness.Call) harness.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wedged {
		return harness.Reply{Outcome: harness.Info, Forwarded: true, Error: "no reply within 10s: the client gave up"}
	}
	s.n++
	s.ledger.Record(fakes.Effect{Fake: "payments", Kind: "charge", ID: fmt.Sprintf("ch_%d", s.n), Markers: []string{c.Marker}})
	if c.Fault != nil {
		s.wedged = true // the lock the abandoned call took is never released
		return harness.Reply{Outcome: harness.Info, Forwarded: true, Error: "the client gave up (client-timeout)"}
	}
	return harness.Reply{Outcome: harness.OK, Status: 200, Effect: "created", HasEffect: true, Identity: fmt.Sprintf("ord_%d", s.n), Forwarded: true}
}

func wedgeSpec() harness.Spec {
	return harness.Spec{Name: "wedge", Kind: "func", Isolated: true, Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
		return &wedgeShop{ledger: env.Ledger}, nil
	}}
}

// A trial after which the target never answers again is a finding with
// that trial as its history; the probes' score stands (the run is not
// made untestable), and the trial runs on a fresh instance of its own.
func TestATrialThatHangsTheTargetIsAFinding(t *testing.T) {
	t.Parallel()
	timeout, err := faults.Builtin().New(faults.NameClientTimeout, nil)
	require.NoError(t, err)
	tr := scenarios.Trial{Steps: []scenarios.Step{
		{Op: "charge", Key: scenarios.Fresh, Fault: faults.NameClientTimeout},
		{Op: "charge", Key: scenarios.Fresh},
	}}
	require.NoError(t, tr.Validate())
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	got := verifyTarget(t, ctx, wedgeSpec(), harness.WithSeed(3), harness.WithTrials(0), harness.WithFaults(timeout),
		harness.WithChecks(harness.CheckRetrySequential, harness.CheckRetryAfterFault), harness.WithReplay(scenarios.Saved{Trial: tr}))
	var probe bool
	for _, f := range got.Findings {
		t.Logf("%s %s trial=%v: %s", f.Severity, f.Check, f.Trial, f.Message)
		probe = probe || !f.Trial && f.Check == harness.CheckRetrySequential && f.Severity == record.Critical
	}
	assert.True(t, probe, "the probes' critical finding stands")
	assert.Equal(t, 0, got.Score.Level)
	sc := got.Scenario
	require.NotNil(t, sc)
	var hang bool
	for _, f := range sc.Findings {
		hang = hang || f.Check == harness.CheckRetryAfterFault && strings.Contains(f.Message, "after this trial's steps the target stopped answering")
	}
	assert.True(t, hang, "the hang is a finding of the trial: %v", sc.Findings)
	require.Len(t, sc.Replayed, 1)
	assert.True(t, sc.Replayed[0].StillFail)
	assert.Contains(t, sc.Replayed[0].Checks, harness.CheckRetryAfterFault)
}
