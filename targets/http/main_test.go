package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// helperEnv turns the test binary into a tiny HTTP target server: the
// launch tests re-execute it (os.Args[0]), so they need no other program.
const helperEnv = "HTTPTARGET_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
	case "1", "die-after":
		os.Exit(serveHelper())
	case "launch":
		os.Exit(launchHelper())
	case "exit":
		fmt.Fprintln(os.Stderr, "helper: fatal: no database at $DATABASE_URL")
		os.Exit(3)
	default:
		fmt.Fprintf(os.Stderr, "unknown %s mode %q\n", helperEnv, os.Getenv(helperEnv))
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}

// launchHelper starts the helper server (mode 1) outside its own process
// group and session, without the tags that would make it the harness's,
// adds its pid to $STATE_DIR/server.pid, waits until the harness has
// called it, and exits 0: a launcher (docker compose up -d, a service
// manager) that starts the server elsewhere and returns.
func launchHelper() int {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IDEMCHECK_SCOPE=") && !strings.HasPrefix(kv, "IDEMCHECK_OWNER=") && !strings.HasPrefix(kv, helperEnv+"=") {
			env = append(env, kv)
		}
	}
	// Started once: a launcher run again (after a crash fault killed
	// nothing but it) finds the server up, as docker compose up -d does.
	if c, err := net.Dial("tcp", "127.0.0.1:"+os.Getenv("PORT")); err == nil {
		_ = c.Close()
		return 0
	}
	seen := filepath.Join(os.Getenv("STATE_DIR"), "called.seen")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(env, helperEnv+"=1", "CALLED_SEEN="+seen)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		return 1
	}
	pids, err := os.OpenFile(filepath.Join(os.Getenv("STATE_DIR"), "server.pid"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_, err = fmt.Fprintln(pids, cmd.Process.Pid)
		err = errors.Join(err, pids.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		return 1
	}
	// Returns once the harness has made a call: it is past its start, so
	// the launcher's exit comes while the probes run (one that returns
	// before the server is seen ready is a start that failed).
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(seen); err == nil {
			fmt.Fprintln(os.Stderr, "launcher: the server is up")
			return 0
		}
		time.Sleep(10 * time.Millisecond) // polling for a file the server writes, with a deadline
	}
	fmt.Fprintln(os.Stderr, "launcher: the server was never asked whether it is ready")
	return 1
}

// serveHelper serves on 127.0.0.1:$PORT until SIGTERM:
//
//	GET  /healthz  200 ok
//	POST /x        201 {"effect":"created","data":{"id":"1"}}
//	GET  /whoami   the process's pid and the environment the launch set
//
// In mode die-after it exits, status 0, once it has answered
// $DIE_AFTER calls of POST /x: a server that stops by itself.
func serveHelper() int {
	left := -1
	if os.Getenv(helperEnv) == "die-after" {
		fmt.Sscan(os.Getenv("DIE_AFTER"), &left)
	}
	var mu sync.Mutex
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("POST /x", func(w http.ResponseWriter, _ *http.Request) {
		if f := os.Getenv("CALLED_SEEN"); f != "" {
			_ = os.WriteFile(f, nil, 0o600) // the harness is past its start
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"effect":"created","data":{"id":"1"}}`)
		mu.Lock()
		defer mu.Unlock()
		if left > 0 {
			if left--; left == 0 {
				w.(http.Flusher).Flush()
				fmt.Fprintln(os.Stderr, "helper: served my last request")
				os.Exit(0)
			}
		}
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"effect": "noop",
			"pid":    os.Getpid(),
			"run_id": os.Getenv("IDEMCHECK_RUN_ID"),
			"state":  os.Getenv("STATE_DIR"),
			"pay":    os.Getenv("PAY_URL"),
		})
	})
	srv := &http.Server{Addr: "127.0.0.1:" + os.Getenv("PORT"), Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "helper: shutdown:", err)
		return 1
	}
	return 0
}
