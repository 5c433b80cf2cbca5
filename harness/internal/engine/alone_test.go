package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// builtins returns the built-in faults named.
func builtins(t *testing.T, names ...string) []faults.Fault {
	t.Helper()
	var fs []faults.Fault
	for _, name := range names {
		fs = append(fs, builtin(t, name))
	}
	return fs
}

// TestDatabaseRestartRunsAlone: a trial that restarts the target's
// database (dep-refuse) runs alone on its target, as one that crashes it
// does, and a trial that joins such a step to another is refused: every
// intent in flight meets the restart, and its failures would be laid at
// the door of its own fault. A fault that acts on one intent's statements
// (dep-stall, dep-error) runs beside others.
func TestDatabaseRestartRunsAlone(t *testing.T) {
	fs := builtins(t, faults.NameReset, faults.NameDepError, faults.NameDepStall, faults.NameDepRefuse, faults.NameCrashAfterCommit)
	byName := map[string]faults.Fault{}
	var alone []string
	for _, f := range fs {
		byName[f.Name()] = f
		if disrupts(nil, f) {
			alone = append(alone, f.Name())
		}
	}
	assert.Equal(t, []string{faults.NameDepRefuse, faults.NameCrashAfterCommit}, alone)
	whole := func(f faults.Fault) bool { return disrupts(nil, f) }
	info := record.TargetInfo{Operations: []record.Operation{{Name: "pay", Mutating: true}}}
	step := func(fault string, with bool) scenarios.Step {
		return scenarios.Step{Op: "pay", Key: scenarios.Fresh, Fault: fault, With: with}
	}
	for _, f := range fs {
		isAlone := f.Name() == faults.NameDepRefuse || f.Name() == faults.NameCrashAfterCommit
		lone := scenarios.Trial{Steps: []scenarios.Step{step("", false), step(f.Name(), false)}}
		assert.Equal(t, isAlone, runsAlone(lone, alone), "%s: the trial runs alone on its target", f.Name())
		_, err := compileTrial(info, lone, byName, true, whole)
		require.NoError(t, err, f.Name())

		joined := scenarios.Trial{Steps: []scenarios.Step{step("", false), step(f.Name(), true)}}
		_, err = compileTrial(info, joined, byName, true, whole)
		if !isAlone {
			assert.NoError(t, err, "%s runs beside another step", f.Name())
			continue
		}
		require.Error(t, err, "%s cannot run beside another step", f.Name())
		assert.Contains(t, err.Error(), "so it cannot run at the same time as another step")
	}
	_, err := compileTrial(info, scenarios.Trial{Steps: []scenarios.Step{step("", false), step(faults.NameDepRefuse, true)}}, byName, true, whole)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dep-refuse restarts the target's database")
}

// TestSpaceKeepsDatabaseRestartsAlone: the trials generated against a
// target that declares its database never join a restart of it
// (dep-refuse) to another step, and draw it as seldom as a crash; the
// faults that act on one intent's statements may be joined.
func TestSpaceKeepsDatabaseRestartsAlone(t *testing.T) {
	fs := builtins(t, faults.NameDepError, faults.NameDepStall, faults.NameDepRefuse)
	// The dependency's proxy acts, whatever the target: none is needed.
	r := &runner{
		s:    &Session{cfg: Config{Faults: fs}},
		inst: &Instance{Deps: map[string]deps.Proxy{"db": nil}},
		rec:  &record.Record{Target: record.TargetInfo{Operations: []record.Operation{{Name: "pay", Mutating: true}}}},
	}
	sp := r.space()
	assert.Equal(t, []string{faults.NameDepError, faults.NameDepStall, faults.NameDepRefuse}, sp.Faults)
	assert.Equal(t, []string{faults.NameDepRefuse}, sp.Alone)
}

// sessionTarget stands for a target whose calls share one session that a
// reset ends (an MCP server): it says reset disrupts it.
type sessionTarget struct{}

func (sessionTarget) Info() record.TargetInfo {
	return record.TargetInfo{Operations: []record.Operation{{Name: "pay", Mutating: true}}}
}
func (sessionTarget) Call(context.Context, record.Call) record.Reply { return record.Reply{} }
func (sessionTarget) Supports(faults.Fault) bool                     { return true }
func (sessionTarget) DisruptedBy(f faults.Fault) bool {
	_, ok := f.(*faults.Reset)
	return ok
}

// TestTargetSaysWhichFaultsRunAlone: a fault the target says acts on
// every call in flight on it (Disrupter) is kept alone as a crash is: the
// trial space lists it among the faults that run alone (so generation
// never joins it to another step, and runsAlone, given that list, runs a
// trial that takes it alone), and a trial that joins it is refused with
// the reason; the other faults on the same target are not.
func TestTargetSaysWhichFaultsRunAlone(t *testing.T) {
	fs := builtins(t, faults.NameReset, faults.NameLostResponse)
	r := &runner{s: &Session{cfg: Config{Faults: fs}}, inst: &Instance{Target: sessionTarget{}}, rec: &record.Record{Target: sessionTarget{}.Info()}}
	sp := r.space()
	assert.Equal(t, []string{faults.NameReset, faults.NameLostResponse}, sp.Faults)
	assert.Equal(t, []string{faults.NameReset}, sp.Alone)

	byName := map[string]faults.Fault{faults.NameReset: fs[0], faults.NameLostResponse: fs[1]}
	whole := func(f faults.Fault) bool { return disrupts(sessionTarget{}, f) }
	joined := func(fault string) scenarios.Trial {
		return scenarios.Trial{Steps: []scenarios.Step{{Op: "pay", Key: scenarios.Fresh}, {Op: "pay", Key: scenarios.Fresh, Fault: fault, With: true}}}
	}
	_, err := compileTrial(r.rec.Target, joined(faults.NameReset), byName, true, whole)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reset acts on every call in flight on the target, so it cannot run at the same time as another step")
	_, err = compileTrial(r.rec.Target, joined(faults.NameLostResponse), byName, true, whole)
	assert.NoError(t, err)
	assert.True(t, runsAlone(scenarios.Trial{Steps: []scenarios.Step{{Op: "pay", Key: scenarios.Fresh, Fault: faults.NameReset}}}, sp.Alone))
	assert.False(t, runsAlone(scenarios.Trial{Steps: []scenarios.Step{{Op: "pay", Key: scenarios.Fresh, Fault: faults.NameLostResponse}}}, sp.Alone))
}
