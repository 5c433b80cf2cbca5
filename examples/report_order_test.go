package examples_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/reports"
)

// TestReportShowsTheDefiningFinding: the MCP tool that says
// idempotentHint: true and charges on every call fails eight checks,
// most of them with several critical findings. Its defining finding,
// mcp.idempotent-hint, is one of them: the text and Markdown reports list
// the worst finding of every failing check before any second finding of
// one, so it is shown, however many repeats the other checks have.
func TestReportShowsTheDefiningFinding(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	var liar mcpexample.Profile
	for _, p := range mcpexample.Profiles {
		if p.Name == "idempotent-liar" {
			liar = p
		}
	}
	require.NotEmpty(t, liar.Name)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.MCPSpec(exe, liar)}, harness.WithSeed(7), harness.WithTrials(0))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	for _, u := range tr.NotExamined {
		// Started by idemcheck, it can be killed: crash.recovery ran.
		assert.NotEqual(t, "crash.recovery", u.Check, "%s", u)
	}
	failing := failing(tr)
	require.Contains(t, failing, "mcp.idempotent-hint")
	require.Greater(t, len(tr.Findings), 5, "more findings than a report shows by default")

	var text, md bytes.Buffer
	require.NoError(t, reports.Text(&text, res, reports.Options{}))
	require.NoError(t, reports.Markdown(&md, res, reports.Options{}))
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, id := range failing {
			assert.True(t, strings.Contains(out, id+" ") || strings.Contains(out, id+"`") || strings.Contains(out, id+":"),
				"the %s report shows a finding of %s:\n%s", name, id, out)
		}
	}
	// The findings shown first are one per failing check: no check
	// appears twice before every failing check appeared once.
	var order []string
	for _, line := range strings.Split(text.String(), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && (fields[0] == "critical" || fields[0] == "major" || fields[0] == "minor") {
			order = append(order, strings.TrimSuffix(strings.Fields(fields[1])[0], ":"))
		}
	}
	require.GreaterOrEqual(t, len(order), len(failing), "%s", text.String())
	seen := map[string]bool{}
	for _, id := range order[:len(failing)] {
		assert.False(t, seen[id], "%s repeated before every failing check was shown: %v", id, order)
		seen[id] = true
	}
}
