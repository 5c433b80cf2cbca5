package kafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/kafka"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// consumer is a test group member with an eager balancer and manual
// commits: the test commits each record (or not).
type consumer struct {
	cl   *kgo.Client
	recs chan *kgo.Record
	stop context.CancelFunc
	done chan struct{}
}

func newConsumer(t *testing.T, b *kafka.Broker) *consumer {
	t.Helper()
	ph := b.Placeholders()
	cl, err := kgo.NewClient(kgo.SeedBrokers(ph[brokers.PlaceholderURL]),
		kgo.ConsumerGroup(ph[brokers.PlaceholderGroup]), kgo.ConsumeTopics(ph[brokers.PlaceholderTopic]),
		kgo.DisableAutoCommit(), kgo.Balancers(kgo.RangeBalancer()),
		kgo.SessionTimeout(time.Second), kgo.HeartbeatInterval(50*time.Millisecond),
		kgo.FetchMaxWait(100*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	c := &consumer{cl: cl, recs: make(chan *kgo.Record, 100), stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			fs.EachRecord(func(r *kgo.Record) { c.recs <- r })
		}
	}()
	t.Cleanup(c.close)
	return c
}

func (c *consumer) close() {
	c.stop()
	<-c.done
	c.cl.Close()
}

func (c *consumer) next(t *testing.T) *kgo.Record {
	t.Helper()
	select {
	case r := <-c.recs:
		return r
	case <-time.After(15 * time.Second):
		t.Fatal("no record within 15s")
		return nil
	}
}

func (c *consumer) commit(t *testing.T, r *kgo.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, c.cl.CommitRecords(ctx, r))
}

func eventID(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == brokers.HeaderEventID {
			return string(h.Value)
		}
	}
	return ""
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func event(id string) brokers.Event {
	return brokers.Event{ID: id, Payload: []byte(`{"description":"idem-0000000000000001"}`)}
}

func TestPublishFetchCommitObserved(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	rec, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	assert.Equal(t, "0@0", rec.Position)
	r := c.next(t)
	assert.Equal(t, "evt_1", eventID(r))
	assert.Equal(t, "evt_1", string(r.Key), "keyed by entity, which defaults to the id")
	c.commit(t, r)
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "evt_1", 1))
}

func TestPublishAgainIsASecondRecord(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	_, err = b.PublishAgain(ctx, event("evt_1"), true)
	assert.ErrorIs(t, err, brokers.ErrUnsupported)
	rec, err := b.PublishAgain(ctx, event("evt_1"), false)
	require.NoError(t, err)
	assert.Equal(t, "0@1", rec.Position)
	c := newConsumer(t, b)
	assert.Equal(t, "evt_1", eventID(c.next(t)))
	assert.Equal(t, "evt_1", eventID(c.next(t)))
}

func TestRebalanceBeforeCommitRedelivers(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	first := c.next(t) // not committed: still being processed
	assert.Equal(t, "evt_1", eventID(first))
	require.NoError(t, b.Log().Wait(ctx, brokers.Rebalanced, "evt_1", 1))
	again := c.next(t)
	assert.Equal(t, "evt_1", eventID(again), "read again from the committed offset after the rebalance")
	assert.Equal(t, first.Offset, again.Offset)
	c.commit(t, again)
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
}

func TestRebalanceAfterCommitRedeliversNothing(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	r := c.next(t)
	c.commit(t, r)
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "evt_1", 1))
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "evt_1"}))
	require.NoError(t, b.Log().Wait(ctx, brokers.Rebalanced, "evt_1", 1))
	_, err = b.Publish(ctx, event("evt_2"))
	require.NoError(t, err)
	assert.Equal(t, "evt_2", eventID(c.next(t)), "the committed event is not read again")
}

func TestDropCommitThenRebalanceRedelivers(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	r := c.next(t)
	c.commit(t, r) // answered as stored, not stored
	require.NoError(t, b.Log().Wait(ctx, brokers.AckDropped, "evt_1", 1))
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "evt_1"}))
	again := c.next(t)
	assert.Equal(t, "evt_1", eventID(again), "the lost commit makes the rebalance read it again")
	c.commit(t, again)
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
}

func TestSecondMemberAfterLostCommitGetsTheEventAgain(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	first := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	r := first.next(t)
	first.commit(t, r)
	require.NoError(t, b.Log().Wait(ctx, brokers.AckDropped, "evt_1", 1))
	first.close() // leaves the group
	second := newConsumer(t, b)
	assert.Equal(t, "evt_1", eventID(second.next(t)))
}

func TestKafkaRejectsDelayAck(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	assert.ErrorIs(t, b.Arm(brokers.Fault{Kind: brokers.DelayAck, EventID: "e"}), brokers.ErrUnsupported)
	assert.True(t, b.Capabilities().Groups)
}

// A member that never commits does not hold up Close, nor does a
// rebalance under way.
func TestCloseIsNotHeldUpByMembers(t *testing.T) {
	b, err := kafka.Start(context.Background(), brokers.Options{})
	require.NoError(t, err)
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "evt_1"}))
	_, err = b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	_ = c.next(t) // never committed
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Close still waiting after 30s")
	}
	_, err = b.Publish(ctx, event("evt_2"))
	assert.ErrorIs(t, err, brokers.ErrClosed)
}

// TestPublishCopiesComeInOnePoll: a burst's copies, produced in one
// write, reach a member that is waiting for records in one poll; each
// is a record of its own, published and observed.
func TestPublishCopiesComeInOnePoll(t *testing.T) {
	b := kafka.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	ph := b.Placeholders()
	cl, err := kgo.NewClient(kgo.SeedBrokers(ph[brokers.PlaceholderURL]),
		kgo.ConsumerGroup(ph[brokers.PlaceholderGroup]), kgo.ConsumeTopics(ph[brokers.PlaceholderTopic]),
		kgo.DisableAutoCommit(), kgo.SessionTimeout(time.Second), kgo.HeartbeatInterval(50*time.Millisecond),
		kgo.FetchMaxWait(100*time.Millisecond))
	require.NoError(t, err)
	defer cl.Close()
	polls := make(chan []string, 10)
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pctx.Err() == nil {
			var ids []string
			cl.PollFetches(pctx).EachRecord(func(r *kgo.Record) { ids = append(ids, eventID(r)) })
			if len(ids) > 0 {
				polls <- ids
			}
		}
	}()
	defer func() { stop(); <-done }()

	// The member is waiting for records once it has had the first.
	_, err = b.Publish(ctx, event("evt_0"))
	require.NoError(t, err)
	select {
	case ids := <-polls:
		require.Equal(t, []string{"evt_0"}, ids)
	case <-ctx.Done():
		t.Fatal("the first event never came")
	}
	recs, err := b.PublishCopies(ctx, event("evt_1"), 4)
	require.NoError(t, err)
	var pos []string
	for _, r := range recs {
		pos = append(pos, r.Position)
	}
	assert.Equal(t, []string{"0@1", "0@2", "0@3", "0@4"}, pos)
	select {
	case ids := <-polls:
		assert.Equal(t, []string{"evt_1", "evt_1", "evt_1", "evt_1"}, ids, "every copy in one poll")
	case <-ctx.Done():
		t.Fatal("the copies never came")
	}
	require.NoError(t, b.Log().Wait(ctx, brokers.Published, "evt_1", 4))
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "evt_1", 4))
}
