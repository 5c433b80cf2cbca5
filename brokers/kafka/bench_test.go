package kafka_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/kafka"
)

// BenchmarkPublishToAck measures events per second from Publish (8
// publishers, each waiting for the produce response) to the offset commit
// that covers the event, through kfake: the consumer group member commits
// after each poll.
func BenchmarkPublishToAck(b *testing.B) { benchPublishToAck(b, 8) }

// BenchmarkOneIntent measures one event at a time, as the harness drives
// an intent: publish, then wait for its ack.
func BenchmarkOneIntent(b *testing.B) { benchPublishToAck(b, 1) }

func benchPublishToAck(b *testing.B, publishers int) {
	br := kafka.Must(b, brokers.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.URL()), kgo.ConsumerGroup(brokers.DefaultGroup),
		kgo.ConsumeTopics(brokers.DefaultTopic), kgo.DisableAutoCommit(), kgo.FetchMaxWait(50*time.Millisecond))
	require.NoError(b, err)
	defer cl.Close()
	cctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for cctx.Err() == nil {
			fs := cl.PollFetches(cctx)
			if fs.NumRecords() > 0 {
				_ = cl.CommitUncommittedOffsets(cctx)
			}
		}
	}()
	defer func() { stop(); <-done }()

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
	if err := waitAcks(ctx, br.Log(), b.N); err != nil {
		counts := map[brokers.Kind]int{}
		for _, o := range br.Log().Observations() {
			counts[o.Kind]++
		}
		b.Fatalf("%v; observed %v", err, counts)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// waitAcks waits until the log holds n acks, scanning each observation
// once.
func waitAcks(ctx context.Context, l *brokers.Log, n int) error {
	scanned, acked := 0, 0
	return l.WaitFunc(ctx, func(obs []brokers.Observation) bool {
		for _, o := range obs[scanned:] {
			if o.Kind == brokers.Acked {
				acked++
			}
		}
		scanned = len(obs)
		return acked >= n
	}, func() string { return fmt.Sprintf("expected %d acks", n) })
}

// BenchmarkStartClose measures starting a broker, provisioned, and
// closing it.
func BenchmarkStartClose(b *testing.B) {
	for b.Loop() {
		br, err := kafka.Start(context.Background(), brokers.Options{})
		require.NoError(b, err)
		require.NoError(b, br.Close())
	}
}
