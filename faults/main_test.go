package faults_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
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
	// toxiproxy's server, built once for the benchmark, goes with the
	// test binary.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if toxiproxyBuild.dir != "" {
			_ = os.RemoveAll(toxiproxyBuild.dir)
		}
	}))
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
	// And of what it allocates, written once it is told to stop.
	if path := os.Getenv(proxyEnv + "_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 512
		defer func() {
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
		}()
	}
	fmt.Println(p.URL())
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	_ = p.Close()
	return 0
}
