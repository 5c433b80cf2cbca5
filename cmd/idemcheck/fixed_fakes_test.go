package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/targets/process"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := process.FreePort()
	require.NoError(t, err)
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// shopConfig is a configuration of one shop profile against a payments
// fake at payAddr: started by idemcheck (byHand == "") or already running
// at byHand.
func shopConfig(t *testing.T, profile, payAddr, byHand string) string {
	t.Helper()
	exe := refexe.Path(t)
	where := fmt.Sprintf(`    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%q, "__example", "shop", "--profile", %q, "--listen", "127.0.0.1:{{port}}", "--state", "{{state_dir}}"]
      env: {PAYMENTS_URL: "{{fakes.payments.url}}"}
      ready: {path: /healthz}
`, exe, profile)
	if byHand != "" {
		where = fmt.Sprintf("    url: \"http://%s\"\n", byHand)
	}
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
fakes:
  payments: {listen: %q}
targets:
  - name: shop
    kind: http
%s    dry_run: {query: dry_run}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"customer":"{{input.customer}}","amount":{{input.amount}},"memo":"{{marker}}"}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 999]}
      - {name: list-orders, mutating: false, method: GET, path: "/orders?customer=cus_x&trace={{marker}}"}
`, payAddr, where)), 0o644))
	return cfg
}

func failingChecks(tr map[string]any) []string {
	var out []string
	for _, c := range tr["checks"].([]any) {
		c := c.(map[string]any)
		if c["status"] == "fail" {
			out = append(out, c["id"].(string))
		}
	}
	sort.Strings(out)
	return out
}

// TestServiceByHandAgainstFixedFakes: a shop started by hand, pointed at
// the payments fake's fixed address, gets the verdicts it gets when
// idemcheck starts it, but for crash.recovery, which needs a process
// idemcheck can kill and restart.
func TestServiceByHandAgainstFixedFakes(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"correct", "check-then-act"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			payAddr := freeAddr(t)

			_, started := runReport(t, ctx, shopConfig(t, profile, payAddr, ""))
			want := targetReport(t, started)

			shopAddr := freeAddr(t)
			startByHand(t, "shop", "--profile", profile, "--listen", shopAddr, "--payments", "http://"+payAddr, "--state", t.TempDir())
			_, byHand := runReport(t, ctx, shopConfig(t, profile, payAddr, shopAddr))
			got := targetReport(t, byHand)

			require.Empty(t, got["error"])
			assert.Equal(t, want["score"], got["score"])
			// A service started by hand cannot be crashed; and whether a
			// client that leaves mid-request shows check-then-act's race
			// (retry.after-fault) depends on timing, in either run.
			without := func(ids []string) []string {
				var out []string
				for _, id := range ids {
					if id != "crash.recovery" && id != "retry.after-fault" {
						out = append(out, id)
					}
				}
				return out
			}
			assert.Equal(t, without(failingChecks(want)), without(failingChecks(got)))
			assert.Contains(t, got["unsupported"], "crash-after-effect", "a service started by hand cannot be crashed")
		})
	}
}

// TestServicePointedElsewhere: a service started by hand against another
// payments service than the run's fake leaves no effect the run sees: exit
// 3, with the reason.
func TestServicePointedElsewhere(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	elsewhere, err := payments.New(payments.Options{Ledger: fakes.NewLedger()})
	require.NoError(t, err)
	defer elsewhere.Close()
	shopAddr := freeAddr(t)
	startByHand(t, "shop", "--profile", "correct", "--listen", shopAddr, "--payments", elsewhere.URL(), "--state", t.TempDir())
	code, rep := runReport(t, ctx, shopConfig(t, "correct", freeAddr(t), shopAddr))
	assert.Equal(t, exitHarness, code)
	assert.Contains(t, targetReport(t, rep)["error"], "no effect could be attributed")
}

func TestFixedFakeAddressTaken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	cfg := shopConfig(t, "correct", taken.Addr().String(), "")
	for _, args := range [][]string{{"run", "-c", cfg}, {"fakes", "--config", cfg}} {
		code, _, errs := runCLI(t, ctx, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errs)
		assert.Contains(t, errs, cfg+":3:", "file and line")
		assert.Contains(t, errs, "fakes.payments.listen: "+taken.Addr().String()+" cannot be bound")
	}
}

// TestFakesFromConfig: idemcheck fakes --config runs the declared fakes at
// their addresses and prints the environment line a service needs.
func TestFakesFromConfig(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	payAddr := freeAddr(t)
	cfg := shopConfig(t, "correct", payAddr, "")
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var errb strings.Builder
		done <- run(ctx, []string{"fakes", "--config", cfg}, strings.NewReader(""), pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, "payments")
	assert.Contains(t, line, "PAYMENTS_URL=http://"+payAddr, "the variable the configuration gives the fake's url to")
	conn, err := net.Dial("tcp", payAddr)
	require.NoError(t, err, "the fake listens at its fixed address")
	conn.Close()
	// The control API is at a URL of its own, and only there.
	_, control, ok := strings.Cut(strings.TrimSpace(line), "control ")
	require.True(t, ok, "the line names the control URL: %s", line)
	for _, c := range []struct {
		base string
		want int
	}{{control, http.StatusOK}, {"http://" + payAddr, http.StatusNotFound}} {
		resp, err := http.Get(c.base + "/_idemcheck/ledger")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, c.want, resp.StatusCode, c.base)
	}
	go io.Copy(io.Discard, pr)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(30 * time.Second):
		t.Fatal("fakes did not stop when interrupted")
	}
}
