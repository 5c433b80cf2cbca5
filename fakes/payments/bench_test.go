package payments_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/fakes/payments"
)

// BenchmarkCharge measures charges per second over loopback, one client
// with keep-alive connections.
func BenchmarkCharge(b *testing.B) {
	for _, keyed := range []bool{false, true} {
		name := "no-key"
		if keyed {
			name = "key"
		}
		b.Run(name, func(b *testing.B) {
			s := payments.Start(b)
			c := newClient(b)
			body := form("amount", "100", "description", markerA)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1/charges", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Content-Type", formType)
				if keyed {
					req.Header.Set("Idempotency-Key", fmt.Sprint("k", i))
				}
				resp, err := c.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "charges/s")
		})
	}
}
