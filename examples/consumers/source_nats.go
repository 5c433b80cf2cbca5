package consumers

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemcheck/idemcheck/brokers"
)

// natsSource pulls from a JetStream durable consumer, processing up to
// workers messages at a time, so that a redelivery can be processed while
// the first delivery is still being processed.
type natsSource struct{ cfg sourceConfig }

func (s *natsSource) run(ctx context.Context, h handler, ready func()) error {
	nc, err := nats.Connect(s.cfg.url, nats.Name(s.cfg.name), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.Timeout(5*time.Second))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", s.cfg.url, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	cons, err := js.Consumer(bctx, s.cfg.stream, s.cfg.group)
	cancel()
	if err != nil {
		return fmt.Errorf("bind to durable consumer %q of stream %q: %w", s.cfg.group, s.cfg.stream, err)
	}
	workers := newPool(s.cfg.workers)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		workers.run(ctx, func() { s.process(ctx, m, h) })
	}, jetstream.PullMaxMessages(2*s.cfg.workers))
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	ready()
	<-ctx.Done()
	cc.Stop()
	workers.wait()
	return nil
}

func (s *natsSource) process(ctx context.Context, m jetstream.Msg, h handler) {
	id := m.Headers().Get(brokers.HeaderEventID)
	if id == "" {
		s.cfg.logf("message on %s without an %s header: terminated", m.Subject(), brokers.HeaderEventID)
		_ = m.Term()
		return
	}
	// An ack asked for before the effect (ack-first) waits for the
	// server's confirmation, so that it is stored before the effect
	// begins, as a Kafka commit or a Redis XACK is.
	d := delivery{eventID: id, entity: m.Headers().Get(brokers.HeaderEntity), seq: parseSeq(m.Headers().Get(headerSeq)), payload: m.Data(), ackNow: func(ctx context.Context) error { return m.DoubleAck(ctx) }}
	switch h(ctx, d) {
	case ack:
		if err := m.Ack(); err != nil {
			s.cfg.logf("event %s: ack: %v", id, err)
		}
	case retry:
		_ = m.NakWithDelay(retryDelay)
	case acked:
	}
}
