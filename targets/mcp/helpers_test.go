package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/mcp"
	"github.com/idemcheck/idemcheck/targets/process"
)

// world is a payments fake and a reference server behind the adapter.
type world struct {
	t      *testing.T
	ledger *fakes.Ledger
	pay    *payments.Server
	target *mcp.Target
	token  string
	n      int
}

// newWorld starts the payments fake and the reference server profile,
// over stdio, or over streamable HTTP when http is true. Everything is
// stopped at the end of the test, and the test fails if any process the
// server started is left behind.
func newWorld(t *testing.T, profile string, http bool) *world {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := &world{t: t, ledger: fakes.NewLedger(), token: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())}
	var err error
	w.pay, err = payments.New(payments.Options{Ledger: w.ledger})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.pay.Close() })
	state := t.TempDir()
	cmd := append(serverCommand(t), "--profile", profile, "--payments", w.pay.URL(), "--state", state)
	cfg := mcp.Config{Name: profile, Env: map[string]string{"IDEMCHECK_TEST_TOKEN": w.token}, Timeout: 5 * time.Second}
	if !http {
		cfg.Command = cmd
		w.target, err = mcp.New(ctx, cfg)
	} else {
		port, perr := process.FreePort()
		require.NoError(t, perr)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		spec := mcp.Spec(mcp.Config{Name: profile, URL: "http://" + addr + "/mcp", Timeout: 5 * time.Second},
			&mcp.Launch{Command: append(cmd, "--listen", addr), Env: map[string]string{"IDEMCHECK_TEST_TOKEN": w.token}, ReadyPath: "/healthz"})
		var tg harness.Target
		tg, err = spec.Start(ctx, &harness.Env{StateDir: state, RunID: "test"})
		if err == nil {
			w.target = tg.(*mcp.Target)
		}
	}
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, w.target.Close())
		require.Empty(t, w.live(), "no server process outlives the target")
	})
	return w
}

// live lists the processes started for this world that are still alive.
func (w *world) live() []int {
	entries, err := os.ReadDir("/proc")
	require.NoError(w.t, err, "these tests need /proc")
	want := []byte("IDEMCHECK_TEST_TOKEN=" + w.token + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		if syscall.Kill(pid, 0) == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// call makes one create_payment attempt with key (fresh marker and
// inputs per intent: pass the same intent to retry it).
func (w *world) call(in harness.Call, f faults.Fault) harness.Reply {
	w.n++
	in.ID = fmt.Sprintf("t-%d", w.n)
	in.Fault = f
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return w.target.Call(ctx, in)
}

// intent is a create_payment call with a fresh marker.
func (w *world) intent(key string) harness.Call {
	w.n++
	return harness.Call{
		Operation: "create_payment", Key: key,
		Marker: fmt.Sprintf("idem-%016x", time.Now().UnixNano()+int64(w.n)),
		Inputs: map[string]string{"customer": "cus_test", "amount": "1234"},
	}
}

// effects counts the charges attributed to the call's marker.
func (w *world) effects(c harness.Call) int {
	n := 0
	for _, e := range w.ledger.Effects() {
		if e.HasMarker(c.Marker) {
			n++
		}
	}
	return n
}
