package examples_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// duplicateMessages are the messages of tr's findings that say an effect
// was caused twice.
func duplicateMessages(tr harness.TargetResult) []string {
	var out []string
	for _, f := range tr.Findings {
		if f.Severity == record.Critical {
			out = append(out, f.Check+": "+f.Message)
		}
	}
	return out
}

// TestDiagnosisOneStorePerInstance: the shop that keeps its keys in
// process memory, run as two replicas: each instance has its own store,
// so a retry that lands on the other instance charges again. Every
// attempt records the instance that served it, and the duplicates are
// explained by that, not by a race or a store too small.
func TestDiagnosisOneStorePerInstance(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	spec := examples.ShopSpec(exe, "memory-cache")
	spec.Name = "memory-cache-x2"
	launch := &httptarget.Launch{
		Command: []string{exe, examples.Subcommand, "shop", "--profile", "memory-cache",
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}"},
		ReadyPath: "/healthz",
		Replicas:  2,
	}
	spec = httptarget.Spec(examples.ShopConfig("memory-cache-x2", true), launch, examples.PaymentsFake)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(5), harness.WithTrials(0),
		harness.WithChecks("retry.sequential", "concurrent.duplicates", "retry.late"))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	served := map[string]bool{}
	for _, in := range tr.Record.Intents {
		for _, a := range in.Attempts {
			served[a.Instance] = true
		}
	}
	assert.True(t, served["instance 1"] && served["instance 2"], "attempts record their instance: %v", served)
	msgs := duplicateMessages(tr)
	require.NotEmpty(t, msgs, "two in-memory stores duplicate")
	t.Log(strings.Join(msgs, "\n"))
	for _, m := range msgs {
		assert.Contains(t, m, "one store per instance", m)
		assert.NotContains(t, m, "claim it atomically", m)
		assert.NotContains(t, m, "somewhere between", m)
	}
}

// TestDiagnosisOnePerInstanceNotSaidOfOne: the same in-memory shop as one
// instance has no duplicate to explain by instances: its sequential
// retries replay, and nothing says "one store per instance".
func TestDiagnosisOnePerInstanceNotSaidOfOne(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.ShopSpec(exe, "memory-cache")}, harness.WithSeed(5), harness.WithTrials(0),
		harness.WithChecks("retry.sequential", "concurrent.duplicates", "retry.late"))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	for _, f := range tr.Findings {
		assert.NotContains(t, f.Message, "per instance", f.Message)
	}
	for _, in := range tr.Record.Intents {
		for _, a := range in.Attempts {
			assert.Empty(t, a.Instance, "one instance is not named")
		}
	}
}

// TestDiagnosisKeysPerSession: the MCP server that remembers keys in the
// MCP session: a retry on a new session charges again. The attempts
// record their session, and the duplicates are explained by it.
func TestDiagnosisKeysPerSession(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	var p mcpexample.Profile
	for _, x := range mcpexample.Profiles {
		if x.Name == "session-cache" {
			p = x
		}
	}
	require.NotEmpty(t, p.Name)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.MCPSpec(exe, p)}, harness.WithSeed(7), harness.WithTrials(0))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	sessions := map[string]bool{}
	for _, in := range tr.Record.Intents {
		for _, a := range in.Attempts {
			if a.Session != "" {
				sessions[a.Session] = true
			}
		}
	}
	assert.Greater(t, len(sessions), 1, "attempts record their session")
	var perSession int
	for _, m := range duplicateMessages(tr) {
		assert.NotContains(t, m, "claim it atomically", m)
		assert.NotContains(t, m, "somewhere between", m)
		if strings.Contains(m, "keys are kept per session") {
			perSession++
		}
	}
	t.Log(strings.Join(duplicateMessages(tr), "\n"))
	assert.Positive(t, perSession, "the duplicates are explained by sessions:\n%s", strings.Join(duplicateMessages(tr), "\n"))
}

// TestDiagnosisStoreLostInARestart: the in-memory shop, one instance,
// killed after a charge and restarted: the retry charges again. The
// attempts record the process incarnation that served them, and the
// duplicate is explained by the restart between them; the same shop's
// duplicates within one incarnation are not.
func TestDiagnosisStoreLostInARestart(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.ShopSpec(exe, "memory-cache")}, harness.WithSeed(5), harness.WithTrials(0),
		harness.WithChecks("crash.recovery"))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	rec := tr.Record
	explained := 0
	for i := range rec.Intents {
		in := &rec.Intents[i]
		if len(rec.EffectsOf(in)) < 2 {
			continue
		}
		restarted := false
		for _, a := range in.Attempts {
			restarted = restarted || a.Incarnation > in.Attempts[0].Incarnation
		}
		cause := checks.DuplicateCause(rec, in)
		if restarted {
			assert.Contains(t, cause, "did not survive the restart", "intent %d", in.ID)
			explained++
		} else {
			assert.NotContains(t, cause, "restart", "intent %d", in.ID)
		}
	}
	assert.Positive(t, explained, "a crash between a charge and its retry duplicated it")
}

// TestDiagnosisClaimNotAtomic: the shop that checks its key, then claims
// it, in two steps, one instance, one store: the copies of a burst served
// by the same instance at once both get through. That, and only that, is
// explained as a claim that is not atomic.
func TestDiagnosisClaimNotAtomic(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{examples.ShopSpec(exe, "check-then-act")}, harness.WithSeed(5), harness.WithTrials(0),
		harness.WithChecks("concurrent.duplicates", "retry.sequential"))
	require.NoError(t, err)
	tr := res.Targets[0]
	require.Empty(t, tr.Error)
	msgs := duplicateMessages(tr)
	require.NotEmpty(t, msgs)
	for _, m := range msgs {
		assert.Contains(t, m, "claim it atomically", m)
		assert.NotContains(t, m, "per instance", m)
		assert.NotContains(t, m, "per session", m)
		assert.NotContains(t, m, "restart", m)
	}
}
