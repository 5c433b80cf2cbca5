package faults_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// benchBurstN is the size of every benchmarked burst.
const benchBurstN = 20

var benchModes = []faults.BurstMode{faults.Synchronized, faults.Naive}

// entryClock records, per idempotency key, when each handler was entered.
// With hold set, each handler then waits until the whole burst has
// entered (at most a second) before it replies, as a handler that goes
// on to slow work would: its reply then does not compete with the later
// copies' entry for a processor.
type entryClock struct {
	hold bool

	mu     sync.Mutex
	at     map[string][]time.Time
	filled map[string]chan struct{}
}

func newEntryClock(hold bool) *entryClock {
	return &entryClock{hold: hold, at: map[string][]time.Time{}, filled: map[string]chan struct{}{}}
}

func (c *entryClock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	key := r.Header.Get("Idempotency-Key")
	c.mu.Lock()
	c.at[key] = append(c.at[key], now)
	filled := c.filled[key]
	if filled == nil {
		filled = make(chan struct{})
		c.filled[key] = filled
	}
	if len(c.at[key]) == benchBurstN {
		close(filled)
	}
	c.mu.Unlock()
	if c.hold {
		select {
		case <-filled:
		case <-time.After(time.Second):
		}
	}
	w.WriteHeader(http.StatusCreated)
}

// spread is the time between the first and the last handler entry of
// the burst with key.
func (c *entryClock) spread(key string) (time.Duration, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.at[key]
	if len(at) == 0 {
		return 0, 0
	}
	first, last := slices.MinFunc(at, time.Time.Compare), slices.MaxFunc(at, time.Time.Compare)
	return last.Sub(first), len(at)
}

// quantile returns the q-quantile of xs (nearest rank), sorting xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[int(q*float64(len(xs)-1)+0.5)]
}

// benchSpread fires a burst per iteration at an entry clock and reports
// the median and p90 spread of handler entry, in µs.
func benchSpread(b *testing.B, hold bool) {
	for _, mode := range benchModes {
		b.Run(string(mode), func(b *testing.B) {
			clock := newEntryClock(hold)
			srv := httptest.NewServer(clock)
			defer srv.Close()
			burst := faults.Burst{N: benchBurstN, Mode: mode, Timeout: burstWait}
			var spreads []float64
			i := 0
			for b.Loop() {
				i++
				key := fmt.Sprintf("spread-%d", i)
				replies, err := burst.Fire(context.Background(), newOrder(b, srv.URL, key))
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range replies {
					if r.Err != nil {
						b.Fatal(r.Err)
					}
				}
				d, n := clock.spread(key)
				if n != benchBurstN {
					b.Fatalf("burst %d: %d handler entries, want %d", i, n, benchBurstN)
				}
				spreads = append(spreads, float64(d)/float64(time.Microsecond))
			}
			b.ReportMetric(quantile(spreads, 0.5), "median-µs")
			b.ReportMetric(quantile(spreads, 0.9), "p90-µs")
		})
	}
}

// BenchmarkBurstSpread measures how close together the handlers of one
// burst of 20 are entered (the last entry minus the first), against a
// handler that replies at once: the figure includes the server's own
// work on the earlier copies, which competes for the processors.
func BenchmarkBurstSpread(b *testing.B) { benchSpread(b, false) }

// BenchmarkBurstSpreadHeld is BenchmarkBurstSpread against a handler that
// waits for the whole burst before replying: it measures the delivery
// alone, as a target whose handlers go on to slow work sees it.
func BenchmarkBurstSpreadHeld(b *testing.B) { benchSpread(b, true) }

// BenchmarkBurstCheckThenAct measures how often a burst of 20 makes a
// check-then-act handler with a 50µs window execute more than once: the
// fraction of bursts that find the bug.
func BenchmarkBurstCheckThenAct(b *testing.B) {
	for _, mode := range benchModes {
		b.Run(string(mode), func(b *testing.B) {
			target := newCheckThenAct(50 * time.Microsecond)
			srv := httptest.NewServer(target)
			defer srv.Close()
			burst := faults.Burst{N: benchBurstN, Mode: mode, Timeout: burstWait}
			bursts, hits := 0, 0
			for b.Loop() {
				bursts++
				key := fmt.Sprintf("cta-%d", bursts)
				if _, err := burst.Fire(context.Background(), newOrder(b, srv.URL, key)); err != nil {
					b.Fatal(err)
				}
				if target.executions(key) > 1 {
					hits++
				}
			}
			b.ReportMetric(float64(hits)/float64(bursts), "hit-rate")
		})
	}
}
