package latency

import (
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/deps/internal/tcptest"
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
	return tcptest.Serve(tb, func(c net.Conn) {
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		defer u.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = io.Copy(c, u)
			_ = c.Close()
		}()
		_, _ = io.Copy(u, c)
		_ = u.Close()
		<-done
	})
}
