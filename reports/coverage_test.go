package reports_test

import (
	"html"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// TestEveryFormatSaysWhichEffectPointsEachFaultReached: a fault armed at
// each downstream call of an operation in turn is reported, in every
// format, with the points it reached, and a point it never reached is
// named; a target whose operations make one call each says nothing of it.
func TestEveryFormatSaysWhichEffectPointsEachFaultReached(t *testing.T) {
	pay, mail := record.EffectPoint{Index: 1, Fake: "payments", N: 1}, record.EffectPoint{Index: 2, Fake: "email", N: 1}
	res := fixture(t)
	res.Targets[0].Coverage = []record.FaultCoverage{
		{Operation: "create-order", Fault: "crash-after-effect", Points: []record.PointCoverage{{Point: pay, Reached: true}, {Point: mail, Reached: true}}},
		{Operation: "create-order", Fault: "downstream-reset-after", Points: []record.PointCoverage{{Point: pay, Reached: true}, {Point: mail}}},
	}
	for _, f := range reports.Formats() {
		out := render(t, f.Name, res, reports.Options{})
		if f.Name == "json" {
			assert.True(t, strings.Contains(out, `"fault": "downstream-reset-after"`) && strings.Contains(out, `"reached": false`), "json: the coverage is in the report")
			continue
		}
		out = strings.Join(strings.Fields(html.UnescapeString(out)), " ") // the text report wraps its lines
		for _, want := range []string{"create-order: crash-after-effect: payments ✓ email ✓", "downstream-reset-after: payments ✓ email ✗", "not reached: email"} {
			assert.True(t, strings.Contains(out, want), "%s: no %q", f.Name, want)
		}
	}
	plain := fixture(t)
	for _, f := range reports.Formats() {
		out := render(t, f.Name, plain, reports.Options{})
		assert.False(t, strings.Contains(out, "effect points") || strings.Contains(out, `"coverage"`), "%s: a target with one call per operation has no coverage line", f.Name)
	}
}
