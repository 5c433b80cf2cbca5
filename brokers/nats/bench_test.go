package nats_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/nats"
)

// BenchmarkPublishToAck measures events per second from Publish (8
// publishers, each waiting for JetStream's publish ack) to the consumer's
// ack as the fault proxy sees it, through the embedded server and the
// proxy.
func BenchmarkPublishToAck(b *testing.B) { benchPublishToAck(b, 8) }

// BenchmarkOneIntent measures one event at a time, as the harness drives
// an intent: publish, then wait for its ack.
func BenchmarkOneIntent(b *testing.B) { benchPublishToAck(b, 1) }

func benchPublishToAck(b *testing.B, publishers int) {
	br := nats.Must(b, brokers.Options{AckWait: 30 * time.Second})
	nc, err := natsgo.Connect(br.URL())
	require.NoError(b, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(b, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cons, err := js.Consumer(ctx, brokers.DefaultTopic, brokers.DefaultGroup)
	require.NoError(b, err)
	cc, err := cons.Consume(func(m jetstream.Msg) { _ = m.Ack() }, jetstream.PullMaxMessages(500))
	require.NoError(b, err)
	defer cc.Stop()

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
	require.NoError(b, waitAcks(ctx, br.Log(), b.N))
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
		br, err := nats.Start(context.Background(), brokers.Options{})
		require.NoError(b, err)
		require.NoError(b, br.Close())
	}
}
