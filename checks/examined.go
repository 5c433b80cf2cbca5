package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// examine holds the verdicts of rec's checks to what was examined: a
// fault armed for an intent that never acted (record.Attempt.NotFired)
// examined nothing of that fault. The finding of the check that judges
// the intent's retries (its owner) that blames such a fault alone is
// dropped, its cause never having acted; and that check, with no finding
// left, is skipped with a note that says it was not examined
// (notExaminedNote), never passed. The other checks judge the intent as
// the unfaulted call it was. The engine lists each such fault in
// record.Record.Unexamined (record.CauseUnfired).
func examine(rec *record.Record, results []record.CheckResult, findings []record.Finding) ([]record.CheckResult, []record.Finding) {
	unfired := map[string][]*record.Intent{} // by owner check
	// blocking are those of unfired whose faults could have acted: a fault
	// the target gave nothing to act on (listed as unsupported) leaves the
	// check judged on the rest, as a fault never armed does.
	blocking := map[string][]*record.Intent{}
	for i := range rec.Intents {
		if in := &rec.Intents[i]; in.Unfired() {
			unfired[owner(rec, in)] = append(unfired[owner(rec, in)], in)
			if !unfiredUnsupported(rec, in) {
				blocking[owner(rec, in)] = append(blocking[owner(rec, in)], in)
			}
		}
	}
	if len(unfired) == 0 {
		return results, findings
	}
	kept := findings[:0:0]
	dropped := map[string]int{}
	for _, f := range findings {
		if blamesUnfired(f, unfired[f.Check]) {
			dropped[f.Check]++
			continue
		}
		kept = append(kept, f)
	}
	for i, c := range results {
		if len(unfired[c.ID]) == 0 {
			continue
		}
		switch c.Status {
		case record.StatusFail:
			if n := countCheck(kept, c.ID); n > 0 {
				results[i].Note = fmt.Sprintf("%d finding(s)", n)
				continue
			}
		case record.StatusSkip:
			continue // not applicable, or disabled
		}
		ins := blocking[c.ID]
		if len(ins) == 0 {
			if !examinedAny(rec, c.ID) {
				// Every fault it was to be judged under had nothing to act
				// on: nothing was examined, nothing passed.
				results[i] = record.CheckResult{ID: c.ID, Status: record.StatusSkip, Note: unsupportedNote(rec, c.ID)}
			} else if c.Status == record.StatusFail {
				// Its findings all blamed faults that had nothing to act
				// on: what was examined passed.
				results[i] = record.CheckResult{ID: c.ID, Status: record.StatusPass}
			}
			continue
		}
		results[i] = record.CheckResult{ID: c.ID, Status: record.StatusSkip, Note: unfiredNote(rec, c.ID, ins)}
	}
	return results, kept
}

// examinedAny says whether an intent check id judges (its owner) met no
// fault that never acted.
func examinedAny(rec *record.Record, id string) bool {
	for i := range rec.Intents {
		if in := &rec.Intents[i]; owner(rec, in) == id && !in.Unfired() {
			return true
		}
	}
	return false
}

// unsupportedNote says why check id examined nothing: the reasons rec
// lists for its faults that had nothing to act on.
func unsupportedNote(rec *record.Record, id string) string {
	var why []string
	for _, u := range rec.Unexamined {
		if u.Cause == record.CauseUnsupported && u.Check == id && u.Operation != "" && !slices.Contains(why, u.Reason) {
			why = append(why, u.Reason)
		}
	}
	return "nothing examined: " + strings.Join(why, "; ")
}

// unfiredUnsupported says whether every fault armed for in that never
// acted is listed in rec.Unexamined as unsupported at its operation: the
// target gave it nothing to act on.
func unfiredUnsupported(rec *record.Record, in *record.Intent) bool {
	for _, a := range in.Attempts {
		if !a.NotFired || a.Fault == "" {
			continue
		}
		f := a.Fault
		if a.Point != nil {
			f += " at " + a.Point.String()
		}
		if !slices.ContainsFunc(rec.Unexamined, func(u record.Unexamined) bool {
			return u.Cause == record.CauseUnsupported && u.Operation == in.Operation && u.Fault == f
		}) {
			return false
		}
	}
	return true
}

// notExaminedNote starts the note of a check skipped because a fault
// armed for it never acted.
const notExaminedNote = "not examined"

// UnfiredReason says why a fault armed for an attempt that never acted
// left its check's part unexamined (record.CauseUnfired).
const UnfiredReason = "the fault was armed and never acted: the target made no call or effect it acts on while the attempt ran"

// blamesUnfired says whether f names as its cause a fault that, on every
// intent of ins in its evidence that met it, never acted.
func blamesUnfired(f record.Finding, ins []*record.Intent) bool {
	if f.Fault == "" || len(ins) == 0 {
		return false
	}
	ids := map[int]bool{}
	for _, in := range ins {
		ids[in.ID] = true
	}
	met := false
	for _, in := range f.Evidence.Intents {
		for _, a := range in.Attempts {
			if a.Fault != f.Fault {
				continue
			}
			if !a.NotFired || !ids[in.ID] {
				return false
			}
			met = true
		}
	}
	return met
}

func countCheck(fs []record.Finding, id string) int {
	n := 0
	for _, f := range fs {
		if f.Check == id {
			n++
		}
	}
	return n
}

// unfiredNote says which faults were armed for ins and never acted, and
// why, as rec.Unexamined says for check id (UnfiredReason when it says
// nothing more).
func unfiredNote(rec *record.Record, id string, ins []*record.Intent) string {
	var what []string
	for _, in := range ins {
		for _, a := range in.Attempts {
			if a.NotFired && a.Fault != "" {
				if w := a.Fault + " on " + in.Operation; !slices.Contains(what, w) {
					what = append(what, w)
				}
			}
		}
	}
	why := []string{"the target made no call or effect it acts on while the attempt ran"}
	for _, u := range rec.Unexamined {
		if u.Cause == record.CauseUnfired && u.Check == id && u.Reason != UnfiredReason && !slices.Contains(why, u.Reason) {
			why = append(why, u.Reason)
		}
	}
	if len(why) > 1 && !unfiredGeneric(rec, id) {
		why = why[1:]
	}
	return fmt.Sprintf(notExaminedNote+": %s armed for %s never acted (%s): %s, so what it was to show was not shown",
		plural(len(what), "fault", "faults"), plural(len(ins), "intent", "intents"), strings.Join(what, "; "), strings.Join(why, "; "))
}

// unfiredGeneric says whether a fault that never acted for check id is
// listed in rec.Unexamined with no more reason than UnfiredReason.
func unfiredGeneric(rec *record.Record, id string) bool {
	for _, u := range rec.Unexamined {
		if u.Cause == record.CauseUnfired && u.Check == id && u.Reason == UnfiredReason {
			return true
		}
	}
	return false
}

// refusedReason begins the reason of a fault met by a final refusal.
const refusedReason = "the attempt the fault acted on was answered with a final refusal"

// retriedAfterFault are the checks whose probes retry an intent with the
// same key after the fault of its first attempt, and judge the retries.
var retriedAfterFault = []string{CheckRetryAfterFault, CheckCrashRecovery, CheckDownstream, CheckDependencyRecovery}

// unretried says whether in's last attempt met a fault that acted and
// was answered with a final refusal (record.Reply.Retryable: a 4xx, a
// tool's isError that says no status), so that no retry followed it:
// what the fault was to show of a retry was not shown.
func unretried(in *record.Intent) bool {
	if len(in.Attempts) == 0 {
		return false
	}
	a := in.Attempts[len(in.Attempts)-1]
	return a.Fault != "" && !a.NotFired && !a.Burst && !a.DryRun && a.Outcome == record.Fail && !a.Reply.Retryable()
}

// noteUnretried skips, as not examined, each check of retriedAfterFault
// that passed with every faulted intent it judges met by a final refusal
// (see unretried): it saw no retry, so nothing passed. One that judged
// other retries keeps its pass; NotExamined lists the faults it did not
// examine (record.CauseRefused).
func noteUnretried(rec *record.Record, results []record.CheckResult) []record.CheckResult {
	refused := refusedFaults(rec)
	for i, c := range results {
		if c.Status != record.StatusPass || len(refused[c.ID]) == 0 {
			continue
		}
		examined := false
		for j := range rec.Intents {
			in := &rec.Intents[j]
			if in.Faulted() && owner(rec, in) == c.ID && !in.Unfired() && !unretried(in) {
				examined = true
			}
		}
		if !examined {
			results[i] = record.CheckResult{ID: c.ID, Status: record.StatusSkip, Note: notExaminedNote + ": " + refused[c.ID][0].Reason}
		}
	}
	return results
}

// refusedFaults lists, by check of retriedAfterFault, the faults and
// operations whose faulted attempt was answered with a final refusal and
// so never retried (see unretried), one entry each, in the order met.
func refusedFaults(rec *record.Record) map[string][]record.Unexamined {
	out := map[string][]record.Unexamined{}
	for j := range rec.Intents {
		in := &rec.Intents[j]
		if !in.Faulted() || in.Unfired() || !unretried(in) {
			continue
		}
		id := owner(rec, in)
		if !slices.Contains(retriedAfterFault, id) {
			continue
		}
		a := in.Attempts[len(in.Attempts)-1]
		if slices.ContainsFunc(out[id], func(u record.Unexamined) bool { return u.Fault == a.Fault && u.Operation == in.Operation }) {
			continue
		}
		answer, ask := fmt.Sprint(a.Status), "a target that wants a retry after such a failure answers 503 (409 while the first attempt is still in progress)"
		switch rec.Target.Kind {
		case "cli":
			answer, ask = fmt.Sprintf("exit %d", a.Status), "a tool that wants a retry after such a failure exits with one of its retry_exit_codes (75 by default)"
		case "mcp":
			ask = `a tool that wants a retry after such a failure says "status": 503 in its result (409 while the first attempt is still in progress)`
		}
		if a.Error != "" {
			answer = short(a.Error, 80)
		}
		out[id] = append(out[id], record.Unexamined{Check: id, Operation: in.Operation, Fault: a.Fault, Cause: record.CauseRefused,
			Reason: fmt.Sprintf("%s (%s), so no retry with the same key followed it, and whether a retry is safe was not shown; %s", refusedReason, answer, ask)})
	}
	return out
}
