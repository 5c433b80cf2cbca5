package docs_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// firstColumn lists the code spans that open the rows of a page's tables.
func firstColumn(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var out []string
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestExplainedTablesCoverTheRegistries: the tables written by hand in
// the explanations (each check's severity and the reference target that
// shows it; where each fault acts and what the client sees) name every
// check and fault of the code, and nothing else.
func TestExplainedTablesCoverTheRegistries(t *testing.T) {
	var ids []string
	for _, c := range harness.Checks() {
		ids = append(ids, c.ID)
	}
	got := firstColumn(t, "explanations/checks.md")
	assert.ElementsMatch(t, ids, got, "explanations/checks.md: one row per check")

	names := faults.Builtin().Names()
	got = firstColumn(t, "explanations/faults.md")
	assert.ElementsMatch(t, names, got, "explanations/faults.md: one row per fault (and the burst's, whose name is no code)")
}
