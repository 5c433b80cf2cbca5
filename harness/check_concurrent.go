package harness

import (
	"fmt"
	"sort"
	"strings"
)

// evalConcurrentDuplicates judges bursts: one effect, the other copies
// answered with the replay or 409, and every success naming one result.
func evalConcurrentDuplicates(r *Record) ([]Finding, bool) {
	var fs []Finding
	ins := intentsByRole(r, RoleBurst)
	for _, in := range ins {
		effs := r.EffectsOf(in)
		copies, oks := 0, 0
		ids := map[string]int{}
		for _, a := range in.Attempts {
			if a.Burst {
				copies++
			}
			if a.Outcome == OK {
				oks++
				if a.Identity != "" {
					ids[a.Identity]++
				}
			}
		}
		switch {
		case repeated(effs) > 1:
			fs = append(fs, Finding{
				Check: CheckConcurrentDuplicates, Severity: Critical, Operation: in.Operation,
				Message: fmt.Sprintf("%s: %d same-key requests released together caused %s (%s): the key is checked and claimed in two steps; claim it atomically",
					in.Operation, copies, plural(len(effs), "effect", "effects"), effectIDs(effs)),
				Evidence: evidence(r, in),
			})
		case len(ids) > 1:
			fs = append(fs, Finding{
				Check: CheckConcurrentDuplicates, Severity: Major, Operation: in.Operation,
				Message: fmt.Sprintf("%s: %d same-key requests released together were answered as %d different results (%s)",
					in.Operation, copies, len(ids), idList(ids)),
				Evidence: evidence(r, in),
			})
		case oks == 0 && !in.GaveUp:
			fs = append(fs, Finding{
				Check: CheckConcurrentDuplicates, Severity: Major, Operation: in.Operation,
				Message: fmt.Sprintf("%s: after a burst of %d same-key requests the intent never completed (%s)",
					in.Operation, copies, statuses(in)),
				Evidence: evidence(r, in),
			})
		}
	}
	return fs, len(ins) > 0
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
