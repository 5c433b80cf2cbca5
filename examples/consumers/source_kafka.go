package consumers

import (
	"context"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/brokers"
)

// kafkaSource is a member of a Kafka consumer group with an eager
// balancer (a rebalance revokes every partition and reads them again from
// the committed offsets) and manual commits: each record is committed once
// processed, one at a time, in order.
type kafkaSource struct{ cfg sourceConfig }

func (s *kafkaSource) run(ctx context.Context, h handler, ready func()) error {
	hb := s.cfg.ackWait / 10
	if hb < 50*time.Millisecond {
		hb = 50 * time.Millisecond
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(s.cfg.url, ",")...),
		kgo.ClientID(s.cfg.name), kgo.ConsumerGroup(s.cfg.group), kgo.ConsumeTopics(s.cfg.topic),
		kgo.DisableAutoCommit(), kgo.Balancers(kgo.RangeBalancer()),
		kgo.SessionTimeout(s.cfg.ackWait), kgo.HeartbeatInterval(hb), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close() // leaves the group
	ready()
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachError(func(t string, p int32, err error) {
			if ctx.Err() == nil {
				s.cfg.logf("fetch %s/%d: %v", t, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { s.process(ctx, cl, r, h) })
	}
	return nil
}

func (s *kafkaSource) process(ctx context.Context, cl *kgo.Client, r *kgo.Record, h handler) {
	id := header(r, brokers.HeaderEventID)
	commit := func(ctx context.Context) error { return cl.CommitRecords(ctx, r) }
	if id == "" {
		s.cfg.logf("record %d@%d without an %s header: skipped", r.Partition, r.Offset, brokers.HeaderEventID)
		_ = commit(ctx)
		return
	}
	d := delivery{eventID: id, entity: header(r, brokers.HeaderEntity), seq: parseSeq(header(r, headerSeq)), payload: r.Value, ackNow: commit}
	for attempt := 1; attempt <= maxAttempts && ctx.Err() == nil; attempt++ {
		switch h(ctx, d) {
		case ack:
			if err := commit(ctx); err != nil {
				s.cfg.logf("event %s: commit: %v", id, err)
			}
			return
		case acked:
			return
		case retry:
		}
		pause(ctx, retryDelay)
	}
	if ctx.Err() == nil {
		s.cfg.logf("event %s: gave up after %d attempts; not committed", id, maxAttempts)
	}
}

func header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
