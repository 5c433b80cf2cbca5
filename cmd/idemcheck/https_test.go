package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOverHTTPS: a target served over TLS is tested at its https://
// URL, every call, burst and read-back verified against the system's
// roots (here the test server's certificate, named by SSL_CERT_FILE): a
// correct API passes, one that forgets its keys is caught, and one whose
// certificate is not trusted is untestable, with how to trust it.
func TestRunOverHTTPS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		flawed    bool
		untrusted bool
		want      int
	}{{"correct", false, false, exitOK}, {"forgets its keys", true, false, exitBelow}, {"not trusted", false, true, exitHarness}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newCountingAPI()
			api.forgetKeys = tc.flawed
			srv := httptest.NewTLSServer(api)
			defer srv.Close()
			dir := t.TempDir()
			roots := filepath.Join(dir, "roots.pem")
			require.NoError(t, os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
			cfg := filepath.Join(dir, "idemcheck.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: tls-api
    kind: http
    url: %q
    dry_run: {query: dry_run}
    observe:
      - {name: api, http: {path: "/v1/orders?search={{marker}}", items: data}}
    operations:
      - {name: create-order, mutating: true, method: POST, path: /v1/orders, body: '{"note":"order {{marker}} {{input.n}}"}', inputs: {n: {int: [1, 9]}}}
`, srv.URL)), 0o644))

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "run", "-c", cfg, "--trials", "5", "--seed", "7", "--format", "json")
			cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", "SSL_CERT_FILE="+roots)
			if tc.untrusted {
				cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1")
			}
			cmd.WaitDelay = 10 * time.Second
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			var rep map[string]any
			require.NoError(t, json.Unmarshal(out, &rep), "%s\n%s", out, stderr.String())
			tr := targetReport(t, rep)
			if tc.untrusted {
				assert.Equal(t, tc.want, code)
				assert.Contains(t, tr["error"], "TLS handshake", "said before the run, as what it is")
				assert.Contains(t, tr["error"], "SSL_CERT_FILE", "with how to trust it")
				return
			}
			require.Empty(t, tr["error"], "the target is reached over TLS")
			assert.Equal(t, tc.want, code, "score %v, findings %v", tr["score"], tr["findings"])
			if !tc.flawed {
				assert.Equal(t, float64(3), tr["score"])
				return
			}
			var checks []string
			for _, f := range tr["findings"].([]any) {
				checks = append(checks, f.(map[string]any)["check"].(string))
			}
			assert.Contains(t, checks, "retry.sequential", "a key sent twice acted twice")
			assert.Contains(t, checks, "concurrent.duplicates", "the burst went over TLS too")
		})
	}
}
