package reports

import (
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// coverageLines are the coverage lines of t, one per operation with
// several effect points and fault armed at them: "effect points of
// create-order: crash-after-effect: payments ✓ email ✓", followed, when a
// point was never reached, by the points' names ("not reached: email").
func coverageLines(t record.TargetResult) []string {
	lines := make([]string, 0, len(t.Coverage))
	for _, c := range t.Coverage {
		line := "effect points of " + c.String()
		if un := c.Unreached(); len(un) > 0 {
			names := make([]string, len(un))
			for i, p := range un {
				names[i] = p.String()
			}
			line += " (not reached: " + strings.Join(names, ", ") + ")"
		}
		lines = append(lines, line)
	}
	return lines
}
