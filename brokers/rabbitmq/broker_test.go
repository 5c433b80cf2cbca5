package rabbitmq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/rabbitmq"
)

// The node takes seconds to boot: the tests share one, each with its own
// event ids, and each acks what it consumes.
var (
	shared     *rabbitmq.Broker
	sharedErr  error
	sharedOnce sync.Once
)

const ackWait = time.Second

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping RabbitMQ:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func broker(t *testing.T) *rabbitmq.Broker {
	t.Helper()
	if _, _, err := rabbitmq.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	sharedOnce.Do(func() {
		// The boot takes seconds idle, a minute and more on a busy machine.
		shared, sharedErr = rabbitmq.Start(context.Background(), brokers.Options{AckWait: ackWait, StartTimeout: 3 * time.Minute})
	})
	require.NoError(t, sharedErr)
	return shared
}

// consumer reads the queue through the proxy, on a channel it reopens
// when the node closes it.
type consumer struct {
	t      *testing.T
	conn   *amqp.Connection
	ch     *amqp.Channel
	closed chan *amqp.Error
	msgs   <-chan amqp.Delivery
}

func newConsumer(t *testing.T, b *rabbitmq.Broker) *consumer {
	t.Helper()
	conn, err := amqp.Dial(b.Placeholders()[brokers.PlaceholderURL])
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	c := &consumer{t: t, conn: conn}
	c.open()
	return c
}

func (c *consumer) open() {
	c.t.Helper()
	ch, err := c.conn.Channel()
	require.NoError(c.t, err)
	require.NoError(c.t, ch.Qos(10, 0, false))
	c.closed = ch.NotifyClose(make(chan *amqp.Error, 1))
	c.msgs, err = ch.Consume(brokers.DefaultTopic, "", false, false, false, false, nil)
	require.NoError(c.t, err)
	c.ch = ch
}

func (c *consumer) next() amqp.Delivery {
	c.t.Helper()
	select {
	case d, ok := <-c.msgs:
		require.True(c.t, ok, "the channel closed")
		return d
	case <-time.After(15 * time.Second):
		c.t.Fatal("no delivery within 15s")
		return amqp.Delivery{}
	}
}

// awaitClosed waits for the node to close the channel, and reopens it.
func (c *consumer) awaitClosed() *amqp.Error {
	c.t.Helper()
	select {
	case err := <-c.closed:
		c.open()
		return err
	case <-time.After(15 * time.Second):
		c.t.Fatal("the channel was not closed within 15s")
		return nil
	}
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func event(id string) brokers.Event {
	return brokers.Event{ID: id, Payload: []byte(`{"description":"idem-0000000000000001"}`)}
}

func TestPublishDeliverAckObserved(t *testing.T) {
	b := broker(t)
	ctx := waitCtx(t)
	c := newConsumer(t, b)
	_, err := b.Publish(ctx, event("rmq_1"))
	require.NoError(t, err)
	d := c.next()
	assert.Equal(t, "rmq_1", d.MessageId)
	assert.Equal(t, "rmq_1", d.Headers[brokers.HeaderEventID])
	require.NoError(t, d.Ack(false))
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "rmq_1", 1))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "rmq_1", 1))
}

// An acked message stays acked when the consumer timeout closes the
// channel over another, unacked one: only that one comes again.
func TestConsumerTimeoutRedeliversOnlyTheUnacked(t *testing.T) {
	b := broker(t)
	ctx := waitCtx(t)
	c := newConsumer(t, b)
	_, err := b.Publish(ctx, event("rmq_2a"))
	require.NoError(t, err)
	require.NoError(t, c.next().Ack(false))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "rmq_2a", 1))
	_, err = b.Publish(ctx, event("rmq_2b"))
	require.NoError(t, err)
	slow := c.next() // never acked in time
	assert.Equal(t, "rmq_2b", slow.MessageId)
	amqpErr := c.awaitClosed()
	require.NotNil(t, amqpErr)
	assert.Equal(t, amqp.PreconditionFailed, amqpErr.Code, "the consumer timeout: %v", amqpErr)
	again := c.next()
	assert.Equal(t, "rmq_2b", again.MessageId)
	assert.True(t, again.Redelivered)
	require.NoError(t, again.Ack(false))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "rmq_2b", 1))
	assert.Equal(t, 1, b.Log().Count(brokers.Delivered, "rmq_2a"))
}

func TestDropAckRedeliversAfterTheConsumerTimeout(t *testing.T) {
	b := broker(t)
	ctx := waitCtx(t)
	c := newConsumer(t, b)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: "rmq_3"}))
	_, err := b.Publish(ctx, event("rmq_3"))
	require.NoError(t, err)
	require.NoError(t, c.next().Ack(false)) // never reaches the node
	require.NoError(t, b.Log().Wait(ctx, brokers.AckDropped, "rmq_3", 1))
	c.awaitClosed()
	again := c.next()
	assert.Equal(t, "rmq_3", again.MessageId)
	assert.True(t, again.Redelivered)
	require.NoError(t, again.Ack(false))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "rmq_3", 1))
}

func TestDelayAckPastTheConsumerTimeoutIsLost(t *testing.T) {
	b := broker(t)
	ctx := waitCtx(t)
	c := newConsumer(t, b)
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DelayAck, EventID: "rmq_4"}))
	_, err := b.Publish(ctx, event("rmq_4"))
	require.NoError(t, err)
	require.NoError(t, c.next().Ack(false))
	require.NoError(t, b.Log().Wait(ctx, brokers.AckHeld, "rmq_4", 1))
	c.awaitClosed()
	again := c.next()
	assert.True(t, again.Redelivered)
	require.NoError(t, b.Log().Wait(ctx, brokers.AckReleased, "rmq_4", 1))
	obs := b.Log().Observations()
	for _, o := range obs {
		if o.Kind == brokers.AckReleased && o.EventID == "rmq_4" {
			assert.Contains(t, o.Detail, "lost", "the late ack was for a channel the node had closed")
		}
	}
	require.NoError(t, again.Ack(false))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "rmq_4", 1))
}

func TestRabbitMQRejectsRebalanceAndDedup(t *testing.T) {
	b := broker(t)
	assert.ErrorIs(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "e"}), brokers.ErrUnsupported)
	_, err := b.PublishAgain(context.Background(), event("rmq_5"), true)
	assert.ErrorIs(t, err, brokers.ErrUnsupported)
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a second node")
	}
	if _, _, err := rabbitmq.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	// A temporary directory of its own: another node on the machine (a
	// test of another package) has directories of its own meanwhile.
	t.Setenv("TMPDIR", t.TempDir())
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-rabbitmq-*"))
	b, err := rabbitmq.Start(context.Background(), brokers.Options{StartTimeout: 3 * time.Minute})
	require.NoError(t, err)
	server := b.ServerURL()
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	_, err = amqp.DialConfig(server, amqp.Config{Dial: amqp.DefaultDial(time.Second)})
	assert.Error(t, err, "the node is gone")
	var amqpErr *amqp.Error
	assert.False(t, errors.As(err, &amqpErr), "nothing answers AMQP: %v", err)
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-rabbitmq-*"))
	assert.Equal(t, before, after)
}
