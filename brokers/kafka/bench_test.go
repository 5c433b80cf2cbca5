package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/benchkit"
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
	benchkit.Run(ctx, b, br, publishers)
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
