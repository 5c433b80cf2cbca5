package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

var concurrentDistinct = Invariant{
	ID:       CheckConcurrentDistinct,
	Property: "distinct intents sent at once each leave their effect: none is lost to another's write",
	Level:    1,
	Optional: true,
	Probes:   distinctProbes,
	Skip: func(*record.Record) string {
		return "the target takes no calls at once, or its effects are attributed by delta, one intent at a time"
	},
	Eval: evalConcurrentDistinct,
}

// distinctIntents is how many distinct intents the probe sends at once.
const distinctIntents = 4

// distinctProbes sends distinctIntents intents with fresh keys and
// inputs to a mutating operation, released together, from each of the
// target's callers in turn when it has several, racyTries times: a store
// that loads, modifies and saves a whole document keeps only the last
// writer's.
func distinctProbes(pc ProbeContext) []Probe {
	if !pc.Op.Mutating || !pc.Caps.Burst || pc.Caps.Serial {
		return nil
	}
	steps := make([]Step, distinctIntents)
	for i := range steps {
		steps[i] = Fresh(record.RoleDistinct, pc.Op.Name)
		steps[i].With = i > 0
		if pc.Caps.Callers > 1 {
			steps[i].Caller = i % pc.Caps.Callers
		}
	}
	name := fmt.Sprintf("%d distinct intents at once", distinctIntents)
	ps := []Probe{{Name: name, Steps: steps}}
	// Whether the writes overlap depends on timing: the probe is tried
	// again, spread across the run, and one lost intent is enough.
	for k := 2; k <= racyTries; k++ {
		ps = append(ps, Probe{Name: fmt.Sprintf("%s (try %d of %d)", name, k, racyTries), Steps: steps, Spread: true})
	}
	return ps
}

// evalConcurrentDistinct finds the acknowledged intents of a group sent
// at once that left no effect, judged once every one was done.
func evalConcurrentDistinct(r *record.Record) ([]record.Finding, bool) {
	ins := intentsByRole(r, record.RoleDistinct)
	byOp := map[string][]*record.Intent{}
	var ops []string
	for _, in := range ins {
		if !in.Mutating || !in.Acknowledged() || len(r.EffectsOf(in)) > 0 {
			continue
		}
		if byOp[in.Operation] == nil {
			ops = append(ops, in.Operation)
		}
		byOp[in.Operation] = append(byOp[in.Operation], in)
	}
	var fs []record.Finding
	for _, op := range ops {
		lost := byOp[op]
		sent := 0
		for _, in := range ins {
			if in.Operation == op {
				sent++
			}
		}
		markers := make([]string, len(lost))
		for i, in := range lost {
			markers[i] = in.Marker
		}
		fs = append(fs, record.Finding{Check: CheckConcurrentDistinct, Severity: record.Critical, Operation: op,
			Message: fmt.Sprintf("%s: %d of %d distinct intents sent at once were acknowledged but left no effect (%s): a concurrent write undid them, as a store loaded, modified and saved whole does; lock or append instead of rewriting",
				op, len(lost), sent, strings.Join(markers, ", ")),
			Evidence: evidence(r, lost...)})
	}
	return fs, len(ins) > 0
}
