package reports

import (
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// attributionLines says, for the text, Markdown and HTML reports, how t's
// effects were attributed and what its observers saw ("observed: …",
// "attributed by delta: …"), then what the run left out to attribute
// that way ("not run: …"), the parts that share a reason on one line;
// nil for a target with no observer. The JSON report holds the same as
// observers, attribution and not_run.
func attributionLines(t record.TargetResult) []string {
	rec := t.Record
	if rec == nil || (len(rec.Observers) == 0 && rec.Attribution == "" && len(rec.NotRun) == 0) {
		return nil
	}
	var out []string
	if len(rec.Observers) > 0 {
		out = append(out, "observed: "+strings.Join(rec.Observers, "; "))
	}
	if rec.Attribution == record.AttributionDelta {
		out = append(out, "attributed by delta: the change an observer saw after each attempt was given to the intent in flight, so intents ran one at a time")
	}
	byWhy := map[string][]string{}
	var whys []string
	for what, why := range rec.NotRun {
		if _, ok := byWhy[why]; !ok {
			whys = append(whys, why)
		}
		byWhy[why] = append(byWhy[why], what)
	}
	sort.Strings(whys)
	for _, why := range whys {
		what := byWhy[why]
		sort.Strings(what)
		out = append(out, "not run: "+strings.Join(what, ", ")+" ("+why+")")
	}
	return out
}
