package nats_test

import (
	"context"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/benchkit"
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nc, err := natsgo.Connect(br.URL())
	require.NoError(b, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(b, err)
	cons, err := js.Consumer(ctx, brokers.DefaultTopic, brokers.DefaultGroup)
	require.NoError(b, err)
	cc, err := cons.Consume(func(m jetstream.Msg) { _ = m.Ack() }, jetstream.PullMaxMessages(500))
	require.NoError(b, err)
	defer cc.Stop()
	benchkit.Run(ctx, b, br, publishers)
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
