package faults_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/idemcheck/idemcheck/faults"
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
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := "a" + strconv.FormatInt(n.Add(1), 10)
			p.Arm(id, nil)
			req, _ := http.NewRequest(http.MethodPost, p.URL()+"/orders", nil)
			req.Header.Set(faults.AttemptHeader, id)
			resp, err := c.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if rep, ok := p.Report(context.Background(), id, waitLimit); !ok || !rep.Forwarded {
				b.Errorf("attempt %s: report %+v, %v", id, rep, ok)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
