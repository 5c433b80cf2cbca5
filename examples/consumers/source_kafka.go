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
		if !s.cfg.parallelPoll {
			fs.EachRecord(func(r *kgo.Record) { s.process(ctx, cl, r, h) })
			continue
		}
		// Side by side, then committed together: a commit of one record
		// while an earlier one is still being processed would skip it.
		var recs []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
		done := make([]bool, len(recs))
		workers := newPool(s.cfg.workers)
		for i, r := range recs {
			workers.run(ctx, func() { done[i] = s.processOnly(ctx, cl, r, h) })
		}
		workers.wait()
		var commit []*kgo.Record
		for i, r := range recs {
			if !done[i] {
				break // committed up to the first left unprocessed
			}
			commit = append(commit, r)
		}
		if len(commit) > 0 {
			if err := cl.CommitRecords(ctx, commit...); err != nil && ctx.Err() == nil {
				s.cfg.logf("commit: %v", err)
			}
		}
	}
	return nil
}

// processOnly processes r as process does, without committing it: it
// says whether r may be committed (processed, or given no event id). An
// ack-first profile's early ack commits r at once, as process does.
func (s *kafkaSource) processOnly(ctx context.Context, cl *kgo.Client, r *kgo.Record, h handler) bool {
	id := header(r, brokers.HeaderEventID)
	if id == "" {
		s.cfg.logf("record %d@%d without an %s header: skipped", r.Partition, r.Offset, brokers.HeaderEventID)
		return true
	}
	d := delivery{eventID: id, entity: header(r, brokers.HeaderEntity), seq: parseSeq(header(r, headerSeq)), payload: r.Value,
		ackNow: func(ctx context.Context) error { return cl.CommitRecords(ctx, r) }}
	for attempt := 1; attempt <= maxAttempts && ctx.Err() == nil; attempt++ {
		switch h(ctx, d) {
		case ack, acked:
			return true
		case retry:
		}
		pause(ctx, retryDelay)
	}
	if ctx.Err() == nil {
		s.cfg.logf("event %s: gave up after %d attempts; not committed", id, maxAttempts)
	}
	return false
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
