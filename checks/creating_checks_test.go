package checks

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file is the worked example of CREATING_CHECKS.md: a check declared
// as one unit, then proven both ways. It is not registered (it is not one
// of idemcheck's checks); the test runs it through the same planning and
// evaluation as the registered ones.

// CheckSafeRepeatable is the example check's id.
const CheckSafeRepeatable = "safe.repeatable"

var safeRepeatable = Invariant{
	ID:       CheckSafeRepeatable,
	Property: "a safe operation called twice answers with the same status both times",
	Level:    1,
	Optional: true, // a target without safe operations can still reach level 1
	Probes: func(pc ProbeContext) []Probe {
		if pc.Op.Mutating {
			return nil
		}
		s := Fresh(record.RoleRead, pc.Op.Name)
		s.Repeat = 2
		// The same name and steps as safe.readonly's probe: it runs once
		// and serves both checks.
		return []Probe{{Name: "safe call", Steps: []Step{s}}}
	},
	Skip: func(*record.Record) string { return "the target has no safe operation" },
	Eval: evalSafeRepeatable,
}

func evalSafeRepeatable(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleRead)
	for _, in := range ins {
		first := in.Attempts[0]
		for _, a := range in.Attempts[1:] {
			if a.Fault == "" && first.Fault == "" && a.Status != first.Status {
				fs = append(fs, record.Finding{
					Check: CheckSafeRepeatable, Severity: record.Minor, Operation: in.Operation,
					Message:  fmt.Sprintf("%s: the same safe call was answered %d, then %d", in.Operation, first.Status, a.Status),
					Evidence: evidence(r, in),
				})
				break
			}
		}
	}
	return fs, len(ins) > 0
}

func TestCreatingChecksExample(t *testing.T) {
	checks := append(Checks(), safeRepeatable)

	t.Run("contract", func(t *testing.T) { checkContract(t, safeRepeatable) })

	t.Run("planned, sharing safe.readonly's probe", func(t *testing.T) {
		info := record.TargetInfo{Name: "shop", Operations: []record.Operation{{Name: "get"}}}
		ps := Planner{Checks: checks, Enabled: map[string]bool{CheckSafeReadOnly: true, CheckSafeRepeatable: true}}.Plan(info)
		require.Len(t, ps, 1)
		assert.Equal(t, []string{CheckSafeReadOnly, CheckSafeRepeatable}, ps[0].Serves)
	})

	read := func(statuses ...int) *record.Record {
		rec := &record.Record{Target: record.TargetInfo{Name: "shop", Kind: "func", Operations: []record.Operation{{Name: "get"}}}}
		in := record.Intent{ID: 1, Operation: "get", Role: record.RoleRead, Marker: "idem-1"}
		for i, st := range statuses {
			in.Attempts = append(in.Attempts, record.Attempt{N: i + 1, Reply: record.Reply{Outcome: record.OK, Status: st, Forwarded: true}})
		}
		rec.Intents = append(rec.Intents, in)
		return rec
	}
	verdict := func(rec *record.Record) (record.CheckResult, []record.Finding) {
		results, findings := evaluate(checks, rec)
		var mine []record.Finding
		for _, f := range findings {
			if f.Check == CheckSafeRepeatable {
				mine = append(mine, f)
			}
		}
		for _, res := range results {
			if res.ID == CheckSafeRepeatable {
				return res, mine
			}
		}
		t.Fatalf("%s did not run", CheckSafeRepeatable)
		return record.CheckResult{}, nil
	}

	t.Run("a violating target is reported", func(t *testing.T) {
		res, fs := verdict(read(200, 404))
		assert.Equal(t, record.StatusFail, res.Status)
		require.Len(t, fs, 1)
		assert.Equal(t, CheckSafeRepeatable, fs[0].Check)
		assert.Contains(t, fs[0].Message, "answered 200, then 404")
	})
	t.Run("a correct target is not", func(t *testing.T) {
		res, fs := verdict(read(200, 200))
		assert.Equal(t, record.StatusPass, res.Status)
		assert.Empty(t, fs)
	})
	t.Run("nothing to judge is a skip with a reason", func(t *testing.T) {
		rec := read()
		rec.Intents = nil
		res, _ := verdict(rec)
		assert.Equal(t, record.CheckResult{ID: CheckSafeRepeatable, Status: record.StatusSkip, Note: "the target has no safe operation"}, res)
	})
}
