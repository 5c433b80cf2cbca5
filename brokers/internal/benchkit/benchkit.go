package benchkit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
)

// Run publishes b.N events from publishers goroutines, each publish
// waiting for the broker's confirmation (and, with one publisher, for the
// event's ack before the next: one intent at a time), waits for b.N acks,
// and reports events/s.
func Run(ctx context.Context, b *testing.B, br brokers.Broker, publishers int) {
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench_%d", i)
	}
	payload := []byte(`{"amount":1234,"customer":"cus_1","description":"idem-0123456789abcdef"}`)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < b.N; i += publishers {
				if _, err := br.Publish(ctx, brokers.Event{ID: ids[i], Payload: payload}); err != nil {
					b.Error(err)
					return
				}
				if publishers == 1 {
					if err := br.Log().Wait(ctx, brokers.Acked, ids[i], 1); err != nil {
						b.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := br.Log().WaitTotal(ctx, brokers.Acked, b.N); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}
