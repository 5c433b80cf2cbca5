package process_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// helperEnv selects a helper mode: the test binary re-executes itself as the
// target server, so the tests need no other program.
const helperEnv = "PROCESS_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

// runHelper is the helper program. Modes:
//
//	http   serve HTTP on 127.0.0.1:$PORT (/healthz, /exit?code=N)
//	warm   like http, but /healthz answers 503 to its first warmupProbes
//	       requests, as a server still loading does; /warmups says how
//	       many 503s it sent
//	exit3  complain on stderr and exit 3 at once
//	hang   run forever without listening
//	spawn  start a grandchild in hang mode, then serve like http, plus
//	       /grandchild answering the grandchild's pid
//	escape like spawn, but the grandchild starts a session of its own
//	       (setsid), out of the group's reach, and ignores SIGTERM
//	flood  write floodLines numbered lines to stdout and exit 0
func runHelper(mode string) int {
	switch mode {
	case "http":
		return serve(http.NewServeMux())
	case "warm":
		var mu sync.Mutex
		warmups := 0
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if warmups < warmupProbes {
				warmups++
				http.Error(w, "warming up", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "ok")
		})
		mux.HandleFunc("/warmups", func(w http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprint(w, warmups)
		})
		return serve(mux)
	case "exit3":
		fmt.Fprintln(os.Stderr, "helper exit3: fatal: config file shop.toml not found")
		return 3
	case "hang":
		if os.Getenv("IGNORE_TERM") != "" {
			signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		}
		fmt.Printf("helper hang: pid %d, not listening\n", os.Getpid())
		for {
			_ = syscall.Pause() // returns on each handled signal; SIGTERM and SIGKILL still end it
		}
	case "spawn", "escape":
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), helperEnv+"=hang")
		if mode == "escape" {
			gc.Env = append(gc.Env, "IGNORE_TERM=1")
			gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		gc.Stdout, gc.Stderr = os.Stdout, os.Stderr // the grandchild holds the output pipe too
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "helper spawn:", err)
			return 1
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/grandchild", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, gc.Process.Pid)
		})
		return serve(mux)
	case "flood":
		var b strings.Builder
		for i := range floodLines {
			fmt.Fprintf(&b, floodFormat, i)
		}
		_, _ = os.Stdout.WriteString(b.String())
		return 0
	default:
		fmt.Fprintf(os.Stderr, "unknown %s mode %q\n", helperEnv, mode)
		return 2
	}
}

// warmupProbes is how many readiness probes the warm helper answers 503.
const warmupProbes = 3

// The flood helper's output.
const (
	floodLines  = 10000
	floodFormat = "flood line %05d\n"
)

func serve(mux *http.ServeMux) int {
	if os.Getenv(helperEnv) != "warm" {
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, "ok")
		})
	}
	mux.HandleFunc("/exit", func(_ http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		fmt.Fprintf(os.Stderr, "helper: exiting with code %d on request\n", code)
		os.Exit(code)
	})
	addr := "127.0.0.1:" + os.Getenv("PORT")
	fmt.Printf("helper %s: pid %d listening on %s\n", os.Getenv(helperEnv), os.Getpid(), addr)
	err := http.ListenAndServe(addr, mux)
	fmt.Fprintln(os.Stderr, "helper:", err)
	return 1
}
