package consumers

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/idemcheck/idemcheck/brokers"
)

// redisSource is a member of a Redis Streams consumer group, named --name.
// When it starts it reads its own pending entries again (left by a
// previous run under the same name); then, in turn, it claims the entries
// any member has left idle for --ack-wait (XAUTOCLAIM) and reads new ones.
// An entry it could not process stays pending, to be claimed again.
type redisSource struct{ cfg sourceConfig }

// redisBlock bounds one blocking read, so that claims are made in between.
const redisBlock = 200 * time.Millisecond

func (s *redisSource) run(ctx context.Context, h handler, ready func()) error {
	opt, err := goredis.ParseURL(s.cfg.url)
	if err != nil {
		return fmt.Errorf("--url %s: %w", s.cfg.url, err)
	}
	opt.ClientName = s.cfg.name
	cl := goredis.NewClient(opt)
	defer cl.Close()
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = cl.Ping(pctx).Err()
	cancel()
	if err != nil {
		return fmt.Errorf("connect to %s: %w", s.cfg.url, err)
	}
	ready()
	own := "0" // first our own pending entries, then new ones
	for ctx.Err() == nil {
		claimed, _, err := cl.XAutoClaim(ctx, &goredis.XAutoClaimArgs{Stream: s.cfg.topic, Group: s.cfg.group,
			Consumer: s.cfg.name, MinIdle: s.cfg.ackWait, Start: "0-0", Count: int64(s.cfg.workers)}).Result()
		if err != nil && ctx.Err() == nil {
			s.cfg.logf("XAUTOCLAIM: %v", err)
		}
		s.each(ctx, cl, claimed, h)
		args := &goredis.XReadGroupArgs{Group: s.cfg.group, Consumer: s.cfg.name,
			Streams: []string{s.cfg.topic, own}, Count: int64(s.cfg.workers), Block: redisBlock}
		if own == "0" {
			args.Block = -1 // reading the pending list does not block
		}
		res, err := cl.XReadGroup(ctx, args).Result()
		switch {
		case errors.Is(err, goredis.Nil):
		case err != nil:
			if ctx.Err() == nil {
				s.cfg.logf("XREADGROUP: %v", err)
				pause(ctx, retryDelay)
			}
		default:
			for _, st := range res {
				s.each(ctx, cl, st.Messages, h)
			}
		}
		own = ">"
	}
	return nil
}

func (s *redisSource) each(ctx context.Context, cl *goredis.Client, msgs []goredis.XMessage, h handler) {
	for _, m := range msgs {
		if ctx.Err() != nil {
			return
		}
		s.process(ctx, cl, m, h)
	}
}

func (s *redisSource) process(ctx context.Context, cl *goredis.Client, m goredis.XMessage, h handler) {
	xack := func(ctx context.Context) error { return cl.XAck(ctx, s.cfg.topic, s.cfg.group, m.ID).Err() }
	id, _ := m.Values[brokers.HeaderEventID].(string)
	if id == "" {
		s.cfg.logf("entry %s without an %s field: acked and skipped", m.ID, brokers.HeaderEventID)
		_ = xack(ctx)
		return
	}
	payload, _ := m.Values["payload"].(string)
	entity, _ := m.Values[brokers.HeaderEntity].(string)
	seq, _ := m.Values[headerSeq].(string)
	d := delivery{eventID: id, entity: entity, seq: parseSeq(seq), payload: []byte(payload), ackNow: xack}
	switch h(ctx, d) {
	case ack:
		if err := xack(ctx); err != nil {
			s.cfg.logf("event %s: XACK: %v", id, err)
		}
	case retry, acked:
		// Left pending: claimed again once idle for --ack-wait.
	}
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
