package scenarios_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/idemcheck/idemcheck/scenarios"
)

// spaceGen draws what a target may offer: one to three operations, safe
// or mutating, with or without a dry run and inputs; some faults; restarts
// and bursts or not.
func spaceGen() *rapid.Generator[scenarios.Space] {
	return rapid.Custom(func(t *rapid.T) scenarios.Space {
		var s scenarios.Space
		for i, n := 0, rapid.IntRange(1, 3).Draw(t, "ops"); i < n; i++ {
			s.Ops = append(s.Ops, scenarios.Op{
				Name:     string(rune('a' + i)),
				Mutating: rapid.Bool().Draw(t, "mutating"),
				DryRun:   rapid.Bool().Draw(t, "dry run"),
				Inputs:   rapid.Bool().Draw(t, "inputs"),
			})
		}
		s.Faults = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"lost-response", "503-before", "crash-after-effect"}), 0, 3, rapid.ID[string]).Draw(t, "faults")
		s.MaxSteps = rapid.IntRange(0, 8).Draw(t, "max steps")
		s.Restart = rapid.Bool().Draw(t, "restart")
		s.Burst = rapid.SampledFrom([]int{0, 1, 5}).Draw(t, "burst")
		return s
	})
}

// TestEveryGeneratedTrialIsValid: whatever the space, a generated trial
// passes Validate and uses only what the space offers.
func TestEveryGeneratedTrialIsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := spaceGen().Draw(t, "space")
		tr := scenarios.Gen(s).Draw(t, "trial")
		if err := tr.Validate(); err != nil {
			t.Fatalf("generated trial is invalid: %v\n%s", err, tr)
		}
		maxSteps := s.MaxSteps
		if maxSteps <= 0 {
			maxSteps = 6
		}
		if len(tr.Steps) > maxSteps {
			t.Fatalf("%d steps, more than %d", len(tr.Steps), maxSteps)
		}
		ops := map[string]scenarios.Op{}
		for _, op := range s.Ops {
			ops[op.Name] = op
		}
		faults := map[string]bool{"": true}
		for _, f := range s.Faults {
			faults[f] = true
		}
		for i, st := range tr.Steps {
			op, ok := ops[st.Op]
			switch {
			case !ok:
				t.Fatalf("step %d: operation %q is not in the space", i+1, st.Op)
			case !faults[st.Fault]:
				t.Fatalf("step %d: fault %q is not in the space", i+1, st.Fault)
			case st.Restart && (!s.Restart || i == 0):
				t.Fatalf("step %d: a restart the space does not allow", i+1)
			case st.Burst != 0 && (s.Burst < 2 || st.Burst != s.Burst || !op.Mutating):
				t.Fatalf("step %d: a burst of %d in a space of bursts of %d", i+1, st.Burst, s.Burst)
			case st.DryRun && (!op.DryRun || !op.Mutating):
				t.Fatalf("step %d: a dry run of %s, which has none", i+1, st.Op)
			case !op.Mutating && (st.Key != scenarios.Fresh || st.Fault != "" || st.GiveUp):
				t.Fatalf("step %d: a safe call is made once with a fresh key: %+v", i+1, st)
			case st.Key == scenarios.Changed && (!op.Inputs || st.Fault != ""):
				t.Fatalf("step %d: a changed payload needs inputs and no fault: %+v", i+1, st)
			}
		}
	})
}

// TestSavedTrialsRoundTrip: saved trials written by Write load back
// unchanged.
func TestSavedTrialsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "failing-trials.json")
	rapid.Check(t, func(t *rapid.T) {
		s := spaceGen().Draw(t, "space")
		var saved []scenarios.Saved
		for i, n := 0, rapid.IntRange(1, 3).Draw(t, "saved"); i < n; i++ {
			saved = append(saved, scenarios.Saved{
				Target: rapid.StringMatching(`[a-z][a-z0-9-]{0,8}`).Draw(t, "target"),
				Seed:   rapid.Uint64().Draw(t, "seed"),
				Trial:  scenarios.Gen(s).Draw(t, "trial"),
				Checks: rapid.SliceOfN(rapid.SampledFrom([]string{"retry.sequential", "key.mismatch"}), 0, 2).Draw(t, "checks"),
			})
		}
		var buf bytes.Buffer
		if err := scenarios.Write(&buf, saved); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := scenarios.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := scenarios.Write(&again, back); err != nil {
			t.Fatal(err)
		}
		if buf.String() != again.String() {
			t.Fatalf("saved trials changed on the way back:\n%s\n---\n%s", buf.String(), again.String())
		}
	})
}

// TestLoadRefusesBadTrials: a hand-edited file with a trial that cannot
// run is refused with the trial and step that are wrong.
func TestLoadRefusesBadTrials(t *testing.T) {
	rows := []struct {
		why, json, want string
	}{
		{"not saved trials", `{"steps": []}`, "not a file of saved trials"},
		{"a trial with no steps", `[{"target": "t", "trial": {"steps": []}}]`, "trial 1: trial: no steps"},
		{"a step without operation", `[{"target": "t", "trial": {"steps": [{"key": "fresh"}]}}]`, "trial step 1: no operation"},
		{"a reference forwards", `[{"target": "t", "trial": {"steps": [{"op": "a", "key": "again", "of": 0}]}}]`, "refers to step 1, which does not come before it"},
		{"a reference to another operation", `[{"target": "t", "trial": {"steps": [{"op": "a", "key": "fresh"}, {"op": "b", "key": "twin", "of": 0}]}}]`, "an operation of another kind (a)"},
		{"an unknown key policy", `[{"target": "t", "trial": {"steps": [{"op": "a", "key": "stale"}]}}]`, `unknown key policy "stale"`},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trials.json")
			require.NoError(t, os.WriteFile(path, []byte(row.json), 0o644))
			_, err := scenarios.Load(path)
			assert.ErrorContains(t, err, row.want)
		})
	}
}

// TestTrialString: a trial prints as numbered steps a person can follow.
func TestTrialString(t *testing.T) {
	tr := scenarios.Trial{Steps: []scenarios.Step{
		{Op: "charge", Key: scenarios.Fresh, Fault: "lost-response"},
		{Op: "charge", Key: scenarios.Again, Of: 0, GiveUp: true},
		{Op: "charge", Key: scenarios.Changed, Of: 0, Restart: true},
	}}
	require.NoError(t, tr.Validate())
	lines := strings.Split(strings.TrimSpace(tr.String()), "\n")
	assert.Equal(t, []string{
		"1. charge with a fresh key under lost-response retrying until done",
		"2. charge again with the key and payload of step 1 and give up after one attempt",
		"3. restart the target, then charge with the key of step 1 and a changed payload",
	}, lines)
}

// A step of an operation that is not mutating (a read) is told without a
// key, which concerns none of its calls; String, which knows no
// operations, tells every step's key.
func TestAReadStepIsToldWithoutAKey(t *testing.T) {
	tr := scenarios.Trial{Steps: []scenarios.Step{{Op: "create_order", Key: scenarios.Fresh}, {Op: "list_orders", Key: scenarios.Fresh}}}
	sp := scenarios.Space{Ops: []scenarios.Op{{Name: "create_order", Mutating: true}, {Name: "list_orders"}}}
	assert.Equal(t, "1. create_order with a fresh key retrying until done\n2. list_orders retrying until done\n", tr.Describe(sp))
	assert.Contains(t, tr.String(), "2. list_orders with a fresh key")
}
