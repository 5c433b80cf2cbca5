package checks

import (
	"fmt"
	"slices"
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
	// The first try begins with a call alone, whose reply and effects say
	// what each intent is expected to leave (usualKinds): the check needs
	// no other's probe to judge a lost effect, run alone (--only) too.
	first := append([]Step{Fresh(record.RolePlain, pc.Op.Name)}, steps...)
	ps := []Probe{{Name: name, Steps: first}}
	// Whether the writes overlap depends on timing: the probe is tried
	// again, spread across the run, and one lost intent is enough.
	for k := 2; k <= racyTries; k++ {
		ps = append(ps, Probe{Name: fmt.Sprintf("%s (try %d of %d)", name, k, racyTries), Steps: steps, Spread: true})
	}
	return ps
}

// evalConcurrentDistinct finds the acknowledged intents of a group sent
// at once that left no effect, or not the effect their reply named when
// the operation's calls one at a time leave the effect their reply names
// (a charge, but no order ord_7 for "created ord_7": a concurrent
// rewrite of the target's own data lost the order), judged once every
// one was done.
func evalConcurrentDistinct(r *record.Record) ([]record.Finding, bool) {
	ins := intentsByRole(r, record.RoleDistinct)
	byOp := map[string][]*record.Intent{}
	missing := map[*record.Intent][]string{}
	usual := map[string][][2]string{}
	var ops []string
	for _, in := range ins {
		if !in.Mutating || !in.Acknowledged() {
			continue
		}
		effs := r.EffectsOf(in)
		if len(effs) > 0 {
			if _, ok := usual[in.Operation]; !ok {
				usual[in.Operation] = usualKinds(r, in.Operation)
			}
			have := map[[2]string]bool{}
			for _, e := range effs {
				have[[2]string{e.Fake, e.Kind}] = true
			}
			for _, k := range usual[in.Operation] {
				if !have[k] {
					missing[in] = append(missing[in], "no "+k[0]+" "+k[1])
				}
			}
			if len(missing[in]) == 0 {
				continue
			}
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
		partly := false
		markers := make([]string, len(lost))
		for i, in := range lost {
			markers[i] = in.Marker
			if m := missing[in]; len(m) > 0 {
				markers[i] += ": " + strings.Join(m, ", ")
				partly = true
			}
		}
		what, sep := "left no effect", ", "
		if partly {
			what, sep = "left no effect, or not the effect their reply named", "; "
		}
		fs = append(fs, record.Finding{Check: CheckConcurrentDistinct, Severity: record.Critical, Operation: op,
			Message: fmt.Sprintf("%s: %d of %d distinct intents sent at once were acknowledged but %s (%s): a concurrent write undid them, as a store loaded, modified and saved whole does; lock or append instead of rewriting",
				op, len(lost), sent, what, strings.Join(markers, sep)),
			Evidence: evidence(r, lost...)})
	}
	return fs, len(ins) > 0
}

// usualKinds returns the kinds of effect (fake and kind) that every
// acknowledged intent of op is expected to leave: those whose effect the
// reply of every call of op made one at a time, with no fault, named
// (the first attempts of plain intents that succeeded, such as the call
// alone this check's probe begins with: the reply's identity is the
// effect's id, "created ord_1" and ord_1 in the target's own data). An effect the reply does not name may be made for
// some inputs only (an email when asked for), and is not expected of
// every call. None when no call one at a time was made.
func usualKinds(r *record.Record, op string) [][2]string {
	var kinds [][2]string
	first := true
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Operation != op || in.Role != record.RolePlain || len(in.Attempts) == 0 {
			continue
		}
		a := in.Attempts[0]
		if a.Outcome != record.OK || a.Fault != "" || a.Burst || a.DryRun {
			continue
		}
		named := map[[2]string]bool{}
		for _, e := range r.EffectsOf(in) {
			if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter && a.Identity != "" && e.ID == a.Identity {
				named[[2]string{e.Fake, e.Kind}] = true
			}
		}
		if first {
			for k := range named {
				kinds = append(kinds, k)
			}
			first = false
			continue
		}
		kinds = slices.DeleteFunc(kinds, func(k [2]string) bool { return !named[k] })
	}
	slices.SortFunc(kinds, func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) })
	return kinds
}
