package reports_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// TestJUnitFailsExactlyWhenTheGateFails: over every --min-score, with and
// without a baseline, the JUnit report has a failure exactly when some
// tested target did not meet the gate, so a test reporter and the exit
// code never disagree.
func TestJUnitFailsExactlyWhenTheGateFails(t *testing.T) {
	for _, withBaseline := range []bool{false, true} {
		for min := 0; min <= 3; min++ {
			t.Run(fmt.Sprintf("min %d baseline %v", min, withBaseline), func(t *testing.T) {
				res := fixture(t)
				res.Targets = res.Targets[:3] // the tested ones
				if withBaseline {
					base := fixture(t)
					// The baseline had mark-first's first finding only.
					base.Targets[0].Findings = base.Targets[0].Findings[:1]
					require.NoError(t, harness.Compare(base, res))
				}
				harness.ApplyGate(res, min, "")
				var doc struct {
					Failures int `xml:"failures,attr"`
					Suites   []struct {
						Name     string `xml:"name,attr"`
						Failures int    `xml:"failures,attr"`
					} `xml:"testsuite"`
				}
				require.NoError(t, xml.Unmarshal([]byte(render(t, "junit", res, reports.Options{})), &doc))
				assert.Equal(t, !res.Gate.Met, doc.Failures > 0, "gate: %+v", res.Gate)
				for i, s := range doc.Suites {
					assert.Equal(t, !res.Targets[i].Gate.Met, s.Failures > 0, "%s: %s", s.Name, res.Targets[i].Gate.Reason)
				}
			})
		}
	}
}

// TestReportsShowTheGate: the gate and a baseline's new and fixed
// findings are in the text, Markdown and JSON reports.
func TestReportsShowTheGate(t *testing.T) {
	base := fixture(t)
	res := fixture(t)
	// Since the baseline, mismatch fixed its finding and unstable-replay
	// gained one.
	res.Targets[1].Findings = nil
	res.Targets[1].Score = record.ScoreResult{Level: 3, Reason: "every condition holds"}
	base.Targets[2].Findings = base.Targets[2].Findings[:1]
	require.NoError(t, harness.Compare(base, res))
	harness.ApplyGate(res, 2, "old/result.json")

	md := render(t, "md", res, reports.Options{})
	assert.Contains(t, md, "**Since the baseline** (`old/result.json`): 0 new, 1 fixed, 0 still present; score higher than the baseline's 2.")
	assert.Contains(t, md, "Fixed:\n\n- **minor** `key.mismatch` create-order: ")
	assert.Contains(t, md, "New:\n\n- **major** `replay.consistent` create-order: ")
	assert.Contains(t, md, "Gate **not met**: a new major finding (replay.consistent create-order).")

	txt := render(t, "text", res, reports.Options{})
	assert.Contains(t, txt, "gate: ERROR (--min-score 2, baseline old/result.json): ")
	assert.Contains(t, txt, "mismatch since the baseline: 0 new, 1 fixed, 0 still present; score higher than\n    the baseline's 2\n  fixed minor    key.mismatch create-order")

	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(render(t, "json", res, reports.Options{})), &rep))
	require.NotNil(t, rep.Gate)
	assert.False(t, rep.Gate.Met)
	assert.Equal(t, "old/result.json", rep.Gate.Baseline)
	assert.Len(t, rep.Targets[1].Baseline.Fixed, 1)
	assert.True(t, rep.Targets[1].Gate.Met)
}
