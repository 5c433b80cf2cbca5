package reports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// cells returns a check's row of m as column → "status findings/passed".
func cells(t *testing.T, m *reports.Matrix, check string) map[string]reports.MatrixCell {
	t.Helper()
	for _, r := range m.Rows {
		if r.Check == check {
			out := map[string]reports.MatrixCell{}
			for i, c := range r.Cells {
				out[m.Columns[i].Fault] = c
			}
			return out
		}
	}
	t.Fatalf("no row for %s", check)
	return nil
}

func TestMatrix(t *testing.T) {
	res := fixture(t)
	m := reports.BuildMatrix(res.Targets[0]) // mark-first: loses the intent after a failed charge
	require.NotNil(t, m)
	var cols []string
	for _, c := range m.Columns {
		cols = append(cols, c.Fault)
	}
	assert.Equal(t, []string{"", "lost-response", "downstream-503", "crash-before-effect"}, cols, "no fault, then the faults tried in order")
	assert.Len(t, m.Rows, len(res.Targets[0].Checks), "a row per check")

	eo := cells(t, m, checks.CheckExactlyOnce)
	assert.Equal(t, reports.MatrixCell{Status: record.StatusFail, Findings: 1}, eo["downstream-503"], "the lost intent after a failed charge")
	assert.Equal(t, reports.MatrixCell{Status: record.StatusFail, Findings: 1}, eo["crash-before-effect"], "and after a crash before the charge")
	assert.Equal(t, reports.MatrixCell{Status: record.StatusPass, Passed: 1}, eo["lost-response"], "the one mutating operation held under lost-response")

	raf := cells(t, m, checks.CheckRetryAfterFault)
	assert.Equal(t, record.StatusPass, raf["lost-response"].Status)
	assert.Equal(t, record.Status(""), raf[""].Status, "retry.after-fault judges nothing without a fault")
	assert.Equal(t, record.Status(""), raf["crash-before-effect"].Status, "a crash is crash.recovery's to judge")
	assert.Equal(t, record.StatusPass, cells(t, m, checks.CheckCrashRecovery)["crash-before-effect"].Status)

	for col, c := range cells(t, m, checks.CheckDownstream) {
		assert.Equal(t, record.StatusSkip, c.Status, "a skipped check is skipped in every column (%q)", col)
	}
	assert.Equal(t, reports.MatrixCell{Status: record.StatusPass, Passed: 1}, cells(t, m, checks.CheckSafeReadOnly)[""], "the one safe operation")

	mm := reports.BuildMatrix(res.Targets[1]) // mismatch: replays a reused key with another payload
	assert.Equal(t, reports.MatrixCell{Status: record.StatusFail, Findings: 1}, cells(t, mm, checks.CheckKeyMismatch)[""])

	assert.Nil(t, reports.BuildMatrix(res.Targets[3]), "an untested target has no record, so no matrix")
}

// TestMatrixCountsEveryFinding: whatever the layout, the fail cells add up
// to the target's findings.
func TestMatrixCountsEveryFinding(t *testing.T) {
	for _, tr := range fixture(t).Targets {
		m := reports.BuildMatrix(tr)
		if m == nil {
			continue
		}
		n := 0
		for _, r := range m.Rows {
			for _, c := range r.Cells {
				n += c.Findings
			}
		}
		assert.Equal(t, len(tr.Findings), n, tr.Name)
	}
}
