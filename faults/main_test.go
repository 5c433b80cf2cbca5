package faults_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"testing"

	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/faults"
)

// proxyEnv turns the test binary into a fault proxy in front of the URL
// it holds, for the benchmark that compares it with toxiproxy, which also
// runs as a process of its own: it prints the proxy's URL, then serves
// until its standard input closes.
const proxyEnv = "IDEMCHECK_BENCH_PROXY"

// TestMain fails the package if a test leaves a goroutine behind: a proxy
// exchange, a forwarded request or a connection that outlives its test.
func TestMain(m *testing.M) {
	if target := os.Getenv(proxyEnv); target != "" {
		os.Exit(serveProxy(target))
	}
	goleak.VerifyTestMain(m)
}

func serveProxy(target string) int {
	p, err := faults.NewProxy(target, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// A profile of the proxy process, for a look at where its time goes.
	if path := os.Getenv(proxyEnv + "_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	fmt.Println(p.URL())
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	_ = p.Close()
	return 0
}
