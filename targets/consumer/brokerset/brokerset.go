package brokerset

import (
	"context"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/kafka"
	"github.com/idemcheck/idemcheck/brokers/nats"
	"github.com/idemcheck/idemcheck/brokers/rabbitmq"
	"github.com/idemcheck/idemcheck/brokers/redis"
	"github.com/idemcheck/idemcheck/targets/consumer"
)

func init() {
	consumer.RegisterBroker(nats.Name, func(ctx context.Context, o brokers.Options) (brokers.Broker, error) {
		return nats.Start(ctx, o)
	})
	consumer.RegisterBroker(kafka.Name, func(ctx context.Context, o brokers.Options) (brokers.Broker, error) {
		return kafka.Start(ctx, o)
	})
	consumer.RegisterBroker(redis.Name, func(ctx context.Context, o brokers.Options) (brokers.Broker, error) {
		if _, err := redis.Find(); err != nil {
			return nil, err
		}
		return redis.Start(ctx, o)
	})
	consumer.RegisterBroker(rabbitmq.Name, func(ctx context.Context, o brokers.Options) (brokers.Broker, error) {
		if _, _, err := rabbitmq.Find(); err != nil {
			return nil, err
		}
		return rabbitmq.Start(ctx, o)
	})
}
