package examples_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// TestReferenceMCPServers scores every reference MCP server, over real
// stdio pipes and real streamable HTTP, and checks it gets the score it
// was built for, its flaw caught by the checks meant for it, and the
// correct ones no finding at all.
func TestReferenceMCPServers(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	specs := make([]harness.Spec, len(mcpexample.Profiles))
	for i, p := range mcpexample.Profiles {
		specs[i] = examples.MCPSpec(exe, p)
	}
	results := verifyTogether(t, specs, harness.WithSeed(7))
	for i, p := range mcpexample.Profiles {
		t.Run(p.Name, func(t *testing.T) {
			tr := results[i]
			require.Empty(t, tr.Error)
			t.Logf("%s: score %d, failing %v", p.Name, tr.Score.Level, failing(tr))
			for _, f := range tr.Findings {
				t.Logf("%s %s: %s", f.Severity, f.Check, f.Message)
			}
			assert.Equal(t, p.Score, tr.Score.Level, "score of %s", p.Name)
			if p.Email() {
				_, ok := tr.Record.Target.Operation("send_receipt")
				assert.True(t, ok, "%s sends receipts", p.Name)
				emails := 0
				for _, e := range tr.Record.Ledger {
					if e.Fake == "email" {
						emails++
					}
				}
				assert.Positive(t, emails, "the email fake recorded %s's receipts", p.Name)
			}
			if p.Flaw == "" {
				assert.Empty(t, tr.Findings, "the correct server gets no finding")
				// The other way of the MCP checks: they ran, and passed.
				for _, c := range tr.Checks {
					if strings.HasPrefix(c.ID, "mcp.") {
						assert.Equal(t, record.StatusPass, c.Status, "%s on %s: %s", c.ID, p.Name, c.Note)
					}
				}
			}
			assert.Equal(t, p.Failing, failing(tr), "exactly the checks %s's flaw violates", p.Name)
		})
	}
}
