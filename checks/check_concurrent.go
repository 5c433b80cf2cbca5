package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

var concurrentDuplicates = Invariant{
	ID:       CheckConcurrentDuplicates,
	Property: "a burst of same-key requests released together leaves one effect; the others get the replay or 409",
	Level:    2,
	Probes:   burstProbes,
	Skip:     func(*record.Record) string { return "the adapter cannot send bursts" },
	Eval:     evalConcurrentDuplicates,
}

// burstProbes sends pc.Bursts bursts of pc.Burst same-key copies to a
// mutating operation, each with a fresh key. The first follows a warm-up
// call (the target's connections to its own stores open), the others are
// spread across the run: a race the copies of one burst happen to lose
// (a cold pool that serialises them) shows in the others.
func burstProbes(pc ProbeContext) []Probe {
	if !pc.Op.Mutating || pc.Burst < 2 {
		return nil
	}
	burst := func() Step {
		s := Fresh(record.RoleBurst, pc.Op.Name)
		s.Burst = pc.Burst
		s.UntilOK = true
		return s
	}
	name := fmt.Sprintf("burst of %d", pc.Burst)
	ps := []Probe{{Name: name, Steps: []Step{Fresh(record.RolePlain, pc.Op.Name), burst()}}}
	for k := 2; k <= pc.Bursts; k++ {
		ps = append(ps, Probe{Name: fmt.Sprintf("%s (%d of %d)", name, k, pc.Bursts), Steps: []Step{burst()}, Spread: true})
	}
	return ps
}

// burstTally counts one operation's bursts and how many went wrong each
// way, with up to three examples of each.
type burstTally struct {
	bursts, copies       int
	dup, split, never    []*record.Intent
	dupEffects, dupWorst int
}

// evalConcurrentDuplicates judges bursts: one effect, the other copies
// answered with the replay or 409, and every success naming one result.
// Its findings are per operation and say in how many of the bursts each
// thing went wrong.
func evalConcurrentDuplicates(r *record.Record) ([]record.Finding, bool) {
	ins := intentsByRole(r, record.RoleBurst)
	tallies := map[string]*burstTally{}
	eventSender := r.Target.Caps().EventKeys
	renamedOps := map[string]bool{}
	renamed := func(op string) bool {
		v, ok := renamedOps[op]
		if !ok {
			v = replaysRenamed(r, op)
			renamedOps[op] = v
		}
		return v
	}
	for _, in := range ins {
		t := tallies[in.Operation]
		if t == nil {
			t = &burstTally{}
			tallies[in.Operation] = t
		}
		t.bursts++
		effs := r.EffectsOf(in)
		copies, oks := 0, 0
		ids := map[string]int{}
		for _, a := range in.Attempts {
			if a.Burst {
				copies++
			}
			if a.Outcome == record.OK {
				oks++
				if a.Identity != "" {
					ids[a.Identity]++
				}
			}
		}
		t.copies = max(t.copies, copies)
		switch {
		case repeated(effs) > 1:
			if len(t.dup) == 0 || len(effs) > t.dupWorst {
				t.dupWorst = len(effs)
				t.dup = append([]*record.Intent{in}, t.dup...) // the worst first: it is the example
			} else {
				t.dup = append(t.dup, in)
			}
			t.dupEffects += len(effs)
		case len(ids) > 1 && !eventSender && !renamed(in.Operation):
			// Unless the caller reads no identity (a sender of events),
			// or a replay one at a time names another result too:
			// replay.consistent's finding, which the copies that came
			// once the first was done met, as many as timing let come.
			t.split = append(t.split, in)
		case oks == 0 && !in.GaveUp:
			t.never = append(t.never, in)
		}
	}
	var fs []record.Finding
	for _, op := range sortedKeys(tallies) {
		t := tallies[op]
		rate := func(bad []*record.Intent) string {
			return fmt.Sprintf("%d of %s", len(bad), plural(t.bursts, "burst", "bursts"))
		}
		if len(t.dup) > 0 {
			worst := r.EffectsOf(t.dup[0])
			cause := duplicateCause(r, t.dup[0])
			if cause == "" || cause == causeAtomic {
				cause = atomicOr(r, op) // copies released together: at once
			}
			fs = append(fs, record.Finding{
				Check: CheckConcurrentDuplicates, Severity: record.Critical, Operation: op,
				Message: fmt.Sprintf("%s: duplicated in %s of %d same-key requests released together (%d effects in all; the worst burst caused %s: %s): %s",
					op, rate(t.dup), t.copies, t.dupEffects, plural(len(worst), "effect", "effects"), effectIDs(worst), cause),
				Evidence: evidence(r, first3(t.dup)...),
			})
		}
		if len(t.split) > 0 {
			fs = append(fs, record.Finding{
				Check: CheckConcurrentDuplicates, Severity: record.Major, Operation: op,
				Message: fmt.Sprintf("%s: in %s of %d same-key requests released together the copies were answered as different results (e.g. %s): a caller that retried cannot tell which is its result; claim the key before acting, and answer every other copy with the first one's result once it is stored (or a 409 while it is in progress)",
					op, rate(t.split), t.copies, idList(burstIDs(t.split[0]))),
				Evidence: evidence(r, first3(t.split)...),
			})
		}
		if len(t.never) > 0 {
			fs = append(fs, record.Finding{
				Check: CheckConcurrentDuplicates, Severity: record.Major, Operation: op,
				Message: fmt.Sprintf("%s: after %s of %d same-key requests the intent never completed (e.g. %s)",
					op, rate(t.never), t.copies, statuses(t.never[0])),
				Evidence: evidence(r, first3(t.never)...),
			})
		}
	}
	return fs, len(ins) > 0
}

func first3(ins []*record.Intent) []*record.Intent { return ins[:min(len(ins), 3)] }

// burstIDs counts the identities a burst's successful copies named.
func burstIDs(in *record.Intent) map[string]int {
	ids := map[string]int{}
	for _, a := range in.Attempts {
		if a.Outcome == record.OK && a.Identity != "" {
			ids[a.Identity]++
		}
	}
	return ids
}

func idList(ids map[string]int) string {
	keys := make([]string, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, ids[k]))
	}
	return strings.Join(parts, ", ")
}
