package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/examples/webhooks"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// writeWebhookConfig writes a configuration of kind webhook that starts
// the reference webhook handler with profile from this test binary (its
// TestMain runs the __example subcommand), and returns its path. It is
// what a user writes for examples.WebhookSpec.
func writeWebhookConfig(t *testing.T, profile string) string {
	t.Helper()
	exe := refexe.Path(t)
	yml := fmt.Sprintf(`version: 1
fakes:
  payments: {}
targets:
  - name: webhook-%[1]s
    kind: webhook
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%[2]q, %[3]q, %[4]q, --profile, %[1]q, --listen, "127.0.0.1:{{port}}",
                --payments, "{{fakes.payments.url}}", --secret, %[5]q, --state, "{{state_dir}}"]
      ready: {path: /healthz}
    signature: {secret: %[5]q, header: %[6]s}
    events:
      - name: invoice.due
        path: %[7]s
        body: '{"id":"{{key}}","type":"invoice.due","created":{{created}},"data":{"customer":"{{input.customer}}","amount":{{input.amount}},"description":"invoice {{marker}}"}}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 99999]}
      - name: ping
        safe: true
        path: %[7]s
        body: '{"id":"{{key}}","type":"ping","created":{{created}},"data":{"trace":"{{marker}}"}}'
`, profile, exe, examples.Subcommand, examples.WebhooksName, examples.WebhookSecret, webhooks.SignatureHeader, webhooks.Path)
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yml), 0o644))
	return path
}

// TestRunWebhookConfig runs `idemcheck run` on a kind: webhook
// configuration against the reference handler: the correct profile scores
// 3 and passes, the profile that never checks signatures is caught by
// webhook.signature and fails the run.
func TestRunWebhookConfig(t *testing.T) {
	for _, tc := range []struct {
		why     string
		profile string
		code    int
		score   int
		failing []string
	}{
		{"a durable claim per event id, the id passed downstream, signatures checked: no finding", "correct", exitOK, 3, nil},
		{"a forged delivery is processed: a critical finding", "no-signature", exitBelow, 0, []string{"webhook.signature"}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			cfg := writeWebhookConfig(t, tc.profile)
			code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--format", "json", "--seed", "7", "--quiet")
			require.Equal(t, tc.code, code, "%s\nstderr: %s", tc.why, errs)
			var rep reports.Report
			require.NoError(t, json.Unmarshal([]byte(out), &rep))
			require.Len(t, rep.Targets, 1)
			tr := rep.Targets[0]
			assert.Equal(t, "webhook-"+tc.profile, tr.Name)
			assert.Equal(t, webhook.Kind, tr.Kind)
			assert.Empty(t, tr.Error)
			assert.Equal(t, tc.score, tr.Score, "%s: %s", tc.why, tr.ScoreReason)
			var failing []string
			for _, c := range tr.Checks {
				if c.Status == record.StatusFail {
					failing = append(failing, c.ID)
				}
			}
			assert.Equal(t, tc.failing, failing, tc.why)
		})
	}
	t.Cleanup(func() { requireNoTargetsLeft(t) })
}
