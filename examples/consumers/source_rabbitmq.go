package consumers

import (
	"context"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/brokers"
)

// rabbitSource consumes a RabbitMQ queue with manual acks, processing up
// to workers deliveries at a time. When the node closes its channel (a
// delivery not acked within the consumer timeout) it opens another at
// once, without waiting for the deliveries still being processed: their
// acks fail, and the node redelivers them, possibly to this consumer
// while the first delivery is still being processed.
type rabbitSource struct{ cfg sourceConfig }

func (s *rabbitSource) run(ctx context.Context, h handler, ready func()) error {
	conn, err := amqp.DialConfig(s.cfg.url, amqp.Config{Dial: amqp.DefaultDial(5 * time.Second),
		Properties: amqp.Table{"connection_name": s.cfg.name}})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", s.cfg.url, err)
	}
	defer conn.Close()
	workers := newPool(s.cfg.workers)
	defer workers.wait()
	for first := true; ctx.Err() == nil; first = false {
		ch, err := conn.Channel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("open a channel: %w", err)
		}
		if err := ch.Qos(s.cfg.workers, 0, false); err != nil {
			return fmt.Errorf("set the prefetch: %w", err)
		}
		msgs, err := ch.Consume(s.cfg.topic, s.cfg.name, false, false, false, false, nil)
		if err != nil {
			return fmt.Errorf("consume queue %q: %w", s.cfg.topic, err)
		}
		if first {
			ready()
		}
		s.consume(ctx, ch, msgs, workers, h)
	}
	return nil
}

// consume hands the channel's deliveries to workers until the channel
// closes or ctx ends.
func (s *rabbitSource) consume(ctx context.Context, ch *amqp.Channel, msgs <-chan amqp.Delivery, workers *pool, h handler) {
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	for {
		select {
		case <-ctx.Done():
			_ = ch.Close()
			return
		case err := <-closed:
			if err != nil {
				s.cfg.logf("channel closed by the node: %v; opening another", err)
			}
			return
		case d, ok := <-msgs:
			if !ok {
				return
			}
			if !workers.run(ctx, func() { s.process(ctx, d, h) }) {
				return
			}
		}
	}
}

func (s *rabbitSource) process(ctx context.Context, d amqp.Delivery, h handler) {
	id := d.MessageId
	if v, ok := d.Headers[brokers.HeaderEventID].(string); ok && v != "" {
		id = v
	}
	if id == "" {
		s.cfg.logf("message %d without a message id: rejected", d.DeliveryTag)
		_ = d.Reject(false)
		return
	}
	entity, _ := d.Headers[brokers.HeaderEntity].(string)
	seq, _ := d.Headers[headerSeq].(string)
	dl := delivery{eventID: id, entity: entity, seq: parseSeq(seq), payload: d.Body, ackNow: func(context.Context) error { return d.Ack(false) }}
	switch h(ctx, dl) {
	case ack:
		if err := d.Ack(false); err != nil {
			s.cfg.logf("event %s: ack: %v", id, err)
		}
	case retry:
		pause(ctx, retryDelay)
		_ = d.Nack(false, true)
	case acked:
	}
}
