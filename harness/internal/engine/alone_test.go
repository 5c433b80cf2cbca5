package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
