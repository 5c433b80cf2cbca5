package faults_test

import (
	"net/http"
	"testing"
)

// BenchmarkProxyPassThrough measures announced attempts passing through the
// proxy unfaulted, with their reports collected, as the HTTP adapter does
// it: the proxy's overhead bounds how many attempts a trial budget buys.
func BenchmarkProxyPassThrough(b *testing.B) {
	tg := newTarget(b, targetOpts{quiet: true})
	p := mustProxy(b, tg.srv.URL, 0)
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 64}
	b.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	v := &via{url: p.URL(), p: p}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.send(b, c)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
