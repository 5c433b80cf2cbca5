package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/targets/process"
)

// startOrders starts the reference orders service by hand, as a running
// service idemcheck did not start, and returns its port.
func startOrders(t *testing.T, profile, dsn string) int {
	t.Helper()
	port, err := process.FreePort()
	require.NoError(t, err)
	startByHand(t, examples.OrdersName, "--profile", profile, "--db", dsn, "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	return port
}

// startByHand starts a reference target (this test binary, as
// __example ARGS…) the way a user starts a service, and waits for its
// "listening on" line; it is killed when the test ends.
func startByHand(t *testing.T, args ...string) {
	t.Helper()
	exe := refexe.Path(t)
	cmd := exec.Command(exe, append([]string{examples.Subcommand}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		require.Contains(t, line, "listening on ", "%v did not start", args)
	case <-time.After(60 * time.Second):
		t.Fatalf("%v was not ready within 60s", args)
	}
}

// runReport runs idemcheck on cfg and returns its exit code and JSON report.
func runReport(t *testing.T, ctx context.Context, cfg string) (int, map[string]any) {
	t.Helper()
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--format", "json", "--trials", "0", "--seed", "7")
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "stdout: %s\nstderr: %s", out, errs)
	return code, rep
}

func targetReport(t *testing.T, rep map[string]any) map[string]any {
	t.Helper()
	ts, _ := rep["targets"].([]any)
	require.Len(t, ts, 1)
	return ts[0].(map[string]any)
}

// TestInitOpenAPIScoresTheOrdersServiceAsBuilt: init --openapi on the
// orders service's own spec gives a configuration that, with nothing
// filled in, scores the service as built, on a real PostgreSQL, counting
// its orders through its own list endpoint; the service runs already,
// started by hand.
func TestInitOpenAPIScoresTheOrdersServiceAsBuilt(t *testing.T) {
	t.Parallel()
	pg := pgserver.Must(t)
	specText, err := os.ReadFile(filepath.Join("..", "..", "examples", "orders", "openapi.yaml"))
	require.NoError(t, err)
	for _, tc := range []struct {
		profile string
		score   float64
		code    int
	}{{"correct", 3, exitOK}, {"check-then-insert", 0, exitBelow}} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			dsn, err := pg.CreateDatabase(ctx, "init_"+strings.ReplaceAll(tc.profile, "-", "_"))
			require.NoError(t, err)
			port := startOrders(t, tc.profile, dsn)
			dir := t.TempDir()
			spec := filepath.Join(dir, "openapi.yaml")
			require.NoError(t, os.WriteFile(spec, []byte(strings.Replace(string(specText), `default: "8080"`, fmt.Sprintf("default: \"%d\"", port), 1)), 0o644))
			cfg := filepath.Join(dir, "idemcheck.yaml")
			code, _, errs := runCLI(t, ctx, "init", "--openapi", spec, "-o", cfg)
			require.Equal(t, exitOK, code, errs)
			require.NotContains(t, errs, "TODO", "nothing to fill in")

			code, rep := runReport(t, ctx, cfg)
			tr := targetReport(t, rep)
			assert.Equal(t, tc.score, tr["score"], "score; error: %v; findings: %v", tr["error"], tr["findings"])
			assert.Equal(t, tc.code, code)
			assert.Contains(t, tr["unsupported"], "crash-after-effect", "no fake, and a service idemcheck did not start")
		})
	}
}

// TestRunObserveSQL: a configuration that starts the orders service on a
// SQLite file in its state directory and counts its orders with a query.
func TestRunObserveSQL(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	for _, tc := range []struct {
		profile string
		score   float64
		code    int
	}{{"correct", 3, exitOK}, {"no-unique", 0, exitBelow}} {
		t.Run(tc.profile, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: orders
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%q, "__example", "orders", "--profile", %q, "--db", "sqlite:{{state_dir}}/orders.db", "--listen", "127.0.0.1:{{port}}"]
      ready: {path: /healthz}
    dry_run: {query: dry_run}
    observe:
      - name: orders-db
        kind: order
        sql: {dsn: "sqlite:{{state_dir}}/orders.db", query: "SELECT id, amount FROM orders WHERE note LIKE '%%' || {{marker}} || '%%'"}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /v1/orders
        body: '{"customer":"{{input.customer}}","amount":{{input.amount}},"note":"order {{marker}}"}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 999]}
      - {name: list-orders, mutating: false, method: GET, path: "/v1/orders?search={{marker}}"}
`, exe, tc.profile)), 0o644))
			code, rep := runReport(t, ctx, cfg)
			tr := targetReport(t, rep)
			assert.Equal(t, tc.score, tr["score"], "score; error: %v; findings: %v", tr["error"], tr["findings"])
			assert.Equal(t, tc.code, code)
			assert.NotContains(t, tr["unsupported"], "crash-after-reply", "idemcheck started the service: it can kill it after a reply")
			assert.Contains(t, tr["unsupported"], "downstream-503", "no fake to fail")
		})
	}
}
