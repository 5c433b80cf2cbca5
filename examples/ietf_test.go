package examples_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// TestIETFDraftProfile: a shop profile on the ietf-draft profile is held
// to the Idempotency-Key draft's status codes. The correct shop answers
// 400 without a key, 422 for a reused key with another payload, 409 for a
// copy in flight and replays the first reply: no finding. The mismatch
// shop replays instead of 422, and the nodryrun shop runs a keyless
// request instead of 400: each is reported, naming the draft's section.
func TestIETFDraftProfile(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	run := func(profile string) (record.Status, []record.Finding) {
		launch := &httptarget.Launch{
			Command: []string{exe, examples.Subcommand, "shop", "--profile", profile,
				"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
				"--state", "{{state_dir}}"},
			ReadyPath: "/healthz",
		}
		cfg := examples.ShopConfig(profile, profile != "nodryrun")
		cfg.Profile = harness.ProfileIETFDraft
		spec := httptarget.Spec(cfg, launch, examples.PaymentsFake)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7), harness.WithChecks(harness.CheckIETFDraft))
		require.NoError(t, err)
		tr := res.Targets[0]
		require.Empty(t, tr.Error)
		var fs []record.Finding
		for _, f := range tr.Findings {
			t.Logf("%s: %s %s: %s", profile, f.Severity, f.Check, f.Message)
			assert.Equal(t, harness.CheckIETFDraft, f.Check, "only ietf.draft was enabled")
			assert.Equal(t, record.Minor, f.Severity)
			fs = append(fs, f)
		}
		for _, c := range tr.Checks {
			if c.ID == harness.CheckIETFDraft {
				return c.Status, fs
			}
		}
		t.Fatalf("%s: no ietf.draft result", profile)
		return "", nil
	}
	st, fs := run("correct")
	assert.Equal(t, record.StatusPass, st)
	assert.Empty(t, fs)

	st, fs = run("mismatch")
	assert.Equal(t, harness.StatusFail, st)
	mm := "section 2.7 (Error Scenarios): a key reused with a different payload should be refused with 422"
	assert.Equal(t, []string{mm, mm}, ietfSections(fs), "one finding per mutating operation")

	st, fs = run("nodryrun")
	assert.Equal(t, harness.StatusFail, st)
	nk := "section 2.7 (Error Scenarios): a request without the Idempotency-Key header should be refused with 400"
	assert.Equal(t, []string{nk, nk}, ietfSections(fs), "one finding per mutating operation")
}

// ietfSections is each finding's section and rule, up to the status it
// names.
func ietfSections(fs []record.Finding) []string {
	var out []string
	for _, f := range fs {
		m := f.Message
		if i := strings.Index(m, "section "); i >= 0 {
			m = m[i:]
		}
		for _, code := range []string{" 400", " 409", " 422"} {
			if i := strings.Index(m, code); i >= 0 {
				m = m[:i+len(code)]
				break
			}
		}
		out = append(out, m)
	}
	return out
}
