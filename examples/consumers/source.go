package consumers

import (
	"context"
	"fmt"
	"io"
	"time"
)

// retryDelay is how long a source waits before a delivery the handler
// could not process comes again (a NATS nak delay, a Kafka retry).
const retryDelay = 200 * time.Millisecond

// maxAttempts bounds the retries of one delivery within one Kafka poll.
const maxAttempts = 50

// source consumes events from one broker.
type source interface {
	// run consumes until ctx ends, handing every delivery to h; ready is
	// called once the consumer is subscribed. It returns nil when ctx
	// ends, or the error that stopped it.
	run(ctx context.Context, h handler, ready func()) error
}

// sourceConfig is what a source is built from.
type sourceConfig struct {
	url, topic, stream, group, name string
	ackWait                         time.Duration
	workers                         int
	parallelPoll                    bool
	log                             io.Writer
}

func (c sourceConfig) logf(format string, args ...any) { fmt.Fprintf(c.log, format+"\n", args...) }

// sources builds each broker's source.
var sources = map[string]func(sourceConfig) source{
	"nats":     func(c sourceConfig) source { return &natsSource{cfg: c} },
	"kafka":    func(c sourceConfig) source { return &kafkaSource{cfg: c} },
	"redis":    func(c sourceConfig) source { return &redisSource{cfg: c} },
	"rabbitmq": func(c sourceConfig) source { return &rabbitSource{cfg: c} },
}
