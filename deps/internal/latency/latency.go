// Package latency times the operations of the dependency proxies'
// benchmarks: one operation direct and one through the proxy in turn, so
// that both see the same machine, and the medians and their ratio
// reported with the benchmark.
package latency

import (
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// Pair runs direct and proxied in turn b.N times, and reports each one's
// median latency (µs) and rate (ops/s), and the ratio of the medians.
func Pair(b *testing.B, direct, proxied func() error) {
	b.Helper()
	var d, p []time.Duration
	var dt, pt time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := direct(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := proxied(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		d, p = append(d, t1.Sub(t0)), append(p, t2.Sub(t1))
		dt, pt = dt+t1.Sub(t0), pt+t2.Sub(t1)
	}
	md, mp := Median(d), Median(p)
	b.ReportMetric(float64(md.Nanoseconds())/1e3, "direct-p50-µs")
	b.ReportMetric(float64(mp.Nanoseconds())/1e3, "proxy-p50-µs")
	b.ReportMetric(float64(mp)/float64(md), "p50-ratio")
	b.ReportMetric(float64(len(d))/dt.Seconds(), "direct-ops/s")
	b.ReportMetric(float64(len(p))/pt.Seconds(), "proxy-ops/s")
}

// Median returns the median of ds (0 for none).
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Relay starts a plain TCP relay to upstream on loopback, which copies
// bytes both ways and understands nothing: the floor any proxy on its own
// socket pays, to compare a proxy's cost with. It stops when the test
// ends.
func Relay(tb testing.TB, upstream string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				_ = c.Close()
				continue
			}
			track(c)
			track(u)
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(u, c); _ = u.Close() }()
			go func() { defer wg.Done(); _, _ = io.Copy(c, u); _ = c.Close() }()
		}
	}()
	tb.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
