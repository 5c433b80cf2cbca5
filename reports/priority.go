package reports

import (
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// findingsOrder returns t's findings in the order the text and Markdown
// reports show them: first one finding per failing check, the worst of
// that check's, checks ordered by it, the finding that blocks the next
// level (if any) leading; then every other finding, worst first. So the
// finding that defines a check is never hidden behind repeats of
// another. The second value is the blocking finding's position (0), or
// -1 when no finding blocks the next level; the third how many findings
// the first part holds (one per failing check).
func findingsOrder(t record.TargetResult) ([]record.Finding, int, int) {
	fs := t.Findings
	blocking := -1
	if n := t.Score.Next; n != nil && n.Finding >= 0 && n.Finding < len(fs) {
		blocking = n.Finding
	}
	idx := make([]int, len(fs))
	for i := range idx {
		idx[i] = i
	}
	worse := func(a, b int) bool {
		if (a == blocking) != (b == blocking) {
			return a == blocking
		}
		// Flaky findings count for nothing: after every counted one.
		if fs[a].Flaky != fs[b].Flaky {
			return !fs[a].Flaky
		}
		return rank(fs[a].Severity) > rank(fs[b].Severity)
	}
	sort.SliceStable(idx, func(i, j int) bool { return worse(idx[i], idx[j]) })
	seen := map[string]bool{}
	var heads, rest []int
	for _, i := range idx {
		if !seen[fs[i].Check] {
			seen[fs[i].Check] = true
			heads = append(heads, i)
			continue
		}
		rest = append(rest, i)
	}
	out := make([]record.Finding, 0, len(fs))
	for _, i := range append(heads, rest...) {
		out = append(out, fs[i])
	}
	if blocking >= 0 {
		return out, 0, len(heads)
	}
	return out, -1, len(heads)
}

// shown is how many of n ordered findings, heads of them one per failing
// check, a report that shows limit findings lists: never fewer than one per
// failing check.
func shown(n, heads, limit int) int {
	return min(n, max(limit, heads))
}

// notExaminedGroup is what a report says of the checks not examined for
// one reason.
type notExaminedGroup struct {
	Subjects []string
	Reason   string
	Cause    record.Cause
}

// String is the group as "a, b not examined: why".
func (g notExaminedGroup) String() string {
	return strings.Join(g.Subjects, ", ") + " not examined: " + g.Reason
}

// notExamined groups what t's run did not examine by reason, those that
// limit the score first, in the order met.
func notExamined(t record.TargetResult) []notExaminedGroup {
	var limits, others []notExaminedGroup
	for _, u := range t.NotExamined {
		list := &others
		if u.Limits() {
			list = &limits
		}
		found := false
		for i := range *list {
			if g := &(*list)[i]; g.Reason == u.Reason && g.Cause == u.Cause {
				if !containsString(g.Subjects, u.Subject()) {
					g.Subjects = append(g.Subjects, u.Subject())
				}
				found = true
				break
			}
		}
		if !found {
			*list = append(*list, notExaminedGroup{Subjects: []string{u.Subject()}, Reason: u.Reason, Cause: u.Cause})
		}
	}
	return append(limits, others...)
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
