package nats_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/nats"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// consumer is a test consumer: it pulls from the broker's durable
// consumer through the fault proxy and hands every message to the test,
// which acks it (or not).
type consumer struct {
	nc   *natsgo.Conn
	cc   jetstream.ConsumeContext
	msgs chan jetstream.Msg
}

func newConsumer(t *testing.T, b *nats.Broker) *consumer {
	t.Helper()
	ph := b.Placeholders()
	nc, err := natsgo.Connect(ph[brokers.PlaceholderURL])
	require.NoError(t, err)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cons, err := js.Consumer(ctx, ph[brokers.PlaceholderStream], ph[brokers.PlaceholderGroup])
	require.NoError(t, err)
	c := &consumer{nc: nc, msgs: make(chan jetstream.Msg, 100)}
	c.cc, err = cons.Consume(func(m jetstream.Msg) { c.msgs <- m })
	require.NoError(t, err)
	t.Cleanup(c.close)
	return c
}

func (c *consumer) close() {
	c.cc.Stop()
	c.nc.Close()
}

// next returns the next message, failing the test after 10s.
func (c *consumer) next(t *testing.T) jetstream.Msg {
	t.Helper()
	select {
	case m := <-c.msgs:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10s")
		return nil
	}
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func event(id string) brokers.Event {
	return brokers.Event{ID: id, Payload: []byte(`{"description":"idem-0000000000000001"}`)}
}

func TestPublishDeliverAckObserved(t *testing.T) {
	b := nats.Must(t, brokers.Options{AckWait: time.Second})
	c := newConsumer(t, b)
	ctx := waitCtx(t)

	rec, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	assert.Equal(t, "seq 1", rec.Position)
	m := c.next(t)
	assert.Equal(t, "evt_1", m.Headers().Get(brokers.HeaderEventID))
	assert.Equal(t, "evt_1", m.Headers().Get(nats.DedupHeader))
	require.NoError(t, m.Ack())
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	assert.Equal(t, 1, b.Log().Count(brokers.Delivered, "evt_1"))
	assert.Equal(t, 1, b.Log().Count(brokers.Published, "evt_1"))
}

func TestPublishAgainWithAndWithoutDedupHeader(t *testing.T) {
	b := nats.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)

	rec, err := b.PublishAgain(ctx, event("evt_1"), true)
	require.NoError(t, err)
	assert.True(t, rec.Duplicate, "JetStream drops a retried publish that carries the same Nats-Msg-Id")

	rec, err = b.PublishAgain(ctx, event("evt_1"), false)
	require.NoError(t, err)
	assert.False(t, rec.Duplicate, "without the header the retry is a second message")

	c := newConsumer(t, b)
	for range 2 {
		m := c.next(t)
		assert.Equal(t, "evt_1", m.Headers().Get(brokers.HeaderEventID))
		require.NoError(t, m.Ack())
	}
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 2))
	assert.Equal(t, 1, b.Log().Count(brokers.PublishedDuplicate, "evt_1"))
}

func TestDropAckRedelivers(t *testing.T) {
	b := nats.Must(t, brokers.Options{AckWait: 500 * time.Millisecond})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)

	first := c.next(t)
	require.NoError(t, first.Ack()) // swallowed by the proxy
	require.NoError(t, b.Log().Wait(ctx, brokers.AckDropped, "evt_1", 1))
	second := c.next(t)
	md, err := second.Metadata()
	require.NoError(t, err)
	assert.Equal(t, uint64(2), md.NumDelivered, "redelivered once the ack deadline passed")
	require.NoError(t, second.Ack())
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	assert.Equal(t, 2, b.Log().Count(brokers.Delivered, "evt_1"))
}

func TestAckWithoutFaultIsNotRedelivered(t *testing.T) {
	b := nats.Must(t, brokers.Options{AckWait: 300 * time.Millisecond})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	require.NoError(t, c.next(t).Ack())
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))

	// The server has settled the message: nothing is pending, so nothing
	// will be redelivered.
	nc, err := natsgo.Connect(b.ServerURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	cons, err := js.Consumer(ctx, brokers.DefaultTopic, brokers.DefaultGroup)
	require.NoError(t, err)
	for {
		info, err := cons.Info(ctx)
		require.NoError(t, err)
		if info.NumAckPending == 0 {
			assert.Equal(t, 0, info.NumRedelivered)
			assert.Equal(t, uint64(1), info.AckFloor.Stream)
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the ack never settled the message: %+v", info)
		case <-time.After(10 * time.Millisecond):
		}
	}
	assert.Equal(t, 1, b.Log().Count(brokers.Delivered, "evt_1"))
}

func TestDelayAckRedeliversWhileHeldThenPassesItOn(t *testing.T) {
	b := nats.Must(t, brokers.Options{AckWait: 500 * time.Millisecond})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DelayAck, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)

	require.NoError(t, c.next(t).Ack())
	require.NoError(t, b.Log().Wait(ctx, brokers.AckHeld, "evt_1", 1))
	second := c.next(t) // the redelivery, while the first ack is held
	md, err := second.Metadata()
	require.NoError(t, err)
	assert.Equal(t, uint64(2), md.NumDelivered)
	require.NoError(t, b.Log().Wait(ctx, brokers.AckReleased, "evt_1", 1))
	require.NoError(t, second.Ack())
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 2))
}

func TestReorderPublishesAfterTheNextEventOfTheEntity(t *testing.T) {
	b := nats.Must(t, brokers.Options{})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.Reorder, EventID: "evt_1"}))
	rec, err := b.Publish(ctx, brokers.Event{ID: "evt_1", Key: "order_1"})
	require.NoError(t, err)
	assert.Equal(t, "held", rec.Position)
	_, err = b.Publish(ctx, brokers.Event{ID: "evt_2", Key: "order_1"})
	require.NoError(t, err)
	var got []string
	for range 2 {
		m := c.next(t)
		got = append(got, m.Headers().Get(brokers.HeaderEventID))
		require.NoError(t, m.Ack())
	}
	assert.Equal(t, []string{"evt_2", "evt_1"}, got)
}

func TestReorderHoldExpires(t *testing.T) {
	b := nats.Must(t, brokers.Options{})
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.Reorder, EventID: "evt_1", Hold: 50 * time.Millisecond}))
	_, err := b.Publish(ctx, brokers.Event{ID: "evt_1", Key: "order_1"})
	require.NoError(t, err)
	m := c.next(t)
	assert.Equal(t, "evt_1", m.Headers().Get(brokers.HeaderEventID))
}

func TestArmRejectsRebalanceAndBadFaults(t *testing.T) {
	b := nats.Must(t, brokers.Options{})
	assert.ErrorIs(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "e"}), brokers.ErrUnsupported)
	assert.ErrorContains(t, b.Arm(brokers.Fault{Kind: brokers.DropAck}), "event id is empty")
	assert.ErrorContains(t, b.Arm(brokers.Fault{Kind: "nope", EventID: "e"}), "expected one of")
	assert.False(t, b.Capabilities().Supports(brokers.Rebalance))
	assert.True(t, b.Capabilities().Supports(brokers.DropAck))
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-nats-*"))
	b, err := nats.Start(context.Background(), brokers.Options{})
	require.NoError(t, err)
	during, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-nats-*"))
	assert.Len(t, during, len(before)+1, "the store is in a temporary directory")
	url, server := b.URL(), b.ServerURL()
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "Close is idempotent")
	for _, u := range []string{url, server} {
		_, err = natsgo.Connect(u, natsgo.Timeout(time.Second), natsgo.MaxReconnects(0))
		assert.Error(t, err, "nothing listens at %s after Close", u)
	}
	_, err = b.Publish(context.Background(), event("evt_late"))
	assert.ErrorIs(t, err, brokers.ErrClosed)
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-nats-*"))
	assert.Equal(t, before, after, "the store directory is removed")
}

// A consumer that holds its messages and never acks, and an ack held for
// the longest hold, do not hold up Close.
func TestCloseIsNotHeldUpByConsumersOrHeldAcks(t *testing.T) {
	b, err := nats.Start(context.Background(), brokers.Options{AckWait: time.Minute})
	require.NoError(t, err)
	c := newConsumer(t, b)
	ctx := waitCtx(t)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DelayAck, EventID: "evt_1", Hold: brokers.MaxHold}))
	for _, id := range []string{"evt_1", "evt_2"} {
		_, err := b.Publish(ctx, event(id))
		require.NoError(t, err)
	}
	require.NoError(t, c.next(t).Ack()) // held for MaxHold
	_ = c.next(t)                       // never acked
	require.NoError(t, b.Log().Wait(ctx, brokers.AckHeld, "evt_1", 1))
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Close still waiting after 30s")
	}
	assert.Equal(t, 0, b.Log().Count(brokers.AckReleased, "evt_1"), "the held ack is dropped with the broker")
}
