package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// TestDatabaseRestartRunsAlone: a trial that restarts the target's
// database (dep-refuse) runs alone on its target, as one that crashes it
// does, and a trial that joins such a step to another is refused: every
// intent in flight meets the restart, and its failures would be laid at
// the door of its own fault. A fault that acts on one intent's statements
// (dep-stall, dep-error) runs beside others.
func TestDatabaseRestartRunsAlone(t *testing.T) {
	var fs []faults.Fault
	for _, name := range []string{faults.NameReset, faults.NameDepError, faults.NameDepStall, faults.NameDepRefuse, faults.NameCrashAfterCommit} {
		f, err := faults.Builtin().New(name, nil)
		require.NoError(t, err, name)
		fs = append(fs, f)
	}
	byName := map[string]faults.Fault{}
	for _, f := range fs {
		byName[f.Name()] = f
	}
	info := record.TargetInfo{Operations: []record.Operation{{Name: "pay", Mutating: true}}}
	step := func(fault string, with bool) scenarios.Step {
		return scenarios.Step{Op: "pay", Key: scenarios.Fresh, Fault: fault, With: with}
	}
	for _, f := range fs {
		whole := f.Name() == faults.NameDepRefuse || f.Name() == faults.NameCrashAfterCommit
		lone := scenarios.Trial{Steps: []scenarios.Step{step("", false), step(f.Name(), false)}}
		assert.Equal(t, whole, runsAlone(lone, fs), "%s: the trial runs alone on its target", f.Name())
		_, err := compileTrial(info, lone, byName, true)
		require.NoError(t, err, f.Name())

		joined := scenarios.Trial{Steps: []scenarios.Step{step("", false), step(f.Name(), true)}}
		_, err = compileTrial(info, joined, byName, true)
		if !whole {
			assert.NoError(t, err, "%s runs beside another step", f.Name())
			continue
		}
		require.Error(t, err, "%s cannot run beside another step", f.Name())
		assert.Contains(t, err.Error(), "so it cannot run at the same time as another step")
	}
	_, err := compileTrial(info, scenarios.Trial{Steps: []scenarios.Step{step("", false), step(faults.NameDepRefuse, true)}}, byName, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dep-refuse restarts the target's database")
}

// TestSpaceKeepsDatabaseRestartsAlone: the trials generated against a
// target that declares its database never join a restart of it
// (dep-refuse) to another step, and draw it as seldom as a crash; the
// faults that act on one intent's statements may be joined.
func TestSpaceKeepsDatabaseRestartsAlone(t *testing.T) {
	var fs []faults.Fault
	for _, name := range []string{faults.NameDepError, faults.NameDepStall, faults.NameDepRefuse} {
		f, err := faults.Builtin().New(name, nil)
		require.NoError(t, err, name)
		fs = append(fs, f)
	}
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
