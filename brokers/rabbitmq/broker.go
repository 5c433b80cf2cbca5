package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/armed"
	"github.com/idemcheck/idemcheck/brokers/internal/reorder"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

// Name is the broker's name in configuration and placeholders.
const Name = "rabbitmq"

// Broker is a private RabbitMQ node with one durable queue, behind an
// AMQP 0-9-1 proxy.
type Broker struct {
	opts  brokers.Options
	dir   string
	node  *node
	conn  *amqp.Connection
	proxy *tcpproxy.Proxy
	log   brokers.Log
	armed armed.Set
	pub   *reorder.Publisher

	pubMu sync.Mutex
	ch    *amqp.Channel

	conns sync.Map // *tcpproxy.Conn → *connState

	life   context.Context
	cancel context.CancelFunc
	holds  sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

var _ brokers.Broker = (*Broker)(nil)

// Start starts a private RabbitMQ node (its own epmd, node name, cookie,
// database and logs in a temporary directory; AMQP and Erlang
// distribution on loopback) with consumer_timeout opts.AckWait, declares
// the durable queue opts.Topic, and puts an AMQP proxy in front of it. The
// node takes seconds to boot. It fails with ErrNotInstalled when there is
// no RabbitMQ.
func Start(ctx context.Context, opts brokers.Options) (*Broker, error) {
	opts = opts.WithDefaults()
	serverBin, epmdBin, err := Find()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "idemcheck-rabbitmq-")
	if err != nil {
		return nil, fmt.Errorf("rabbitmq: temporary directory: %w", err)
	}
	b := &Broker{opts: opts, dir: dir}
	b.life, b.cancel = context.WithCancel(context.Background())
	b.pub = reorder.New(b.publishNow, &b.log)
	if err := b.start(ctx, serverBin, epmdBin); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Broker) start(ctx context.Context, serverBin, epmdBin string) error {
	var err error
	if b.node, err = startNode(ctx, serverBin, epmdBin, b.dir, b.opts.AckWait); err != nil {
		return err
	}
	if b.conn, err = dial(ctx, b.serverURL()); err != nil {
		return fmt.Errorf("rabbitmq: %w; node output:\n%s", err, b.node.server.Output())
	}
	if b.ch, err = b.conn.Channel(); err != nil {
		return fmt.Errorf("rabbitmq: open the publishing channel: %w", err)
	}
	if err := b.ch.Confirm(false); err != nil {
		return fmt.Errorf("rabbitmq: publisher confirms: %w", err)
	}
	if _, err := b.ch.QueueDeclare(b.opts.Topic, true, false, false, false, nil); err != nil {
		return fmt.Errorf("rabbitmq: declare queue %q: %w", b.opts.Topic, err)
	}
	if b.proxy, err = tcpproxy.Start("127.0.0.1:"+strconv.Itoa(b.node.amqpPort), tcpproxy.Pipes{Up: b.up, Down: b.down}); err != nil {
		return fmt.Errorf("rabbitmq: %w", err)
	}
	return nil
}

// dial connects until the node accepts AMQP connections (its listener
// opens shortly before it is ready) or ctx ends.
func dial(ctx context.Context, url string) (*amqp.Connection, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(5 * time.Second)})
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to the node: %w (last: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

func (b *Broker) serverURL() string {
	return "amqp://guest:guest@127.0.0.1:" + strconv.Itoa(b.node.amqpPort) + "/"
}

// Must starts a broker for a test and closes it when the test ends. It
// skips the test, saying why, when RabbitMQ is not installed.
func Must(tb brokers.TB, opts brokers.Options) *Broker {
	tb.Helper()
	if _, _, err := Find(); err != nil {
		tb.Skipf("skipping: %v", err)
	}
	b, err := Start(context.Background(), opts)
	if err != nil {
		tb.Fatalf("starting RabbitMQ: %v", err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("stopping RabbitMQ: %v", err)
		}
	})
	return b
}

// Name returns "rabbitmq".
func (b *Broker) Name() string { return Name }

// URL returns the consumer's URL: the AMQP proxy, as
// amqp://guest:guest@host:port/.
func (b *Broker) URL() string { return "amqp://guest:guest@" + b.proxy.Addr() + "/" }

// ServerURL returns the node's own URL, which bypasses the proxy.
func (b *Broker) ServerURL() string { return b.serverURL() }

// Placeholders returns the broker's placeholder values; broker.topic is
// the queue, broker.ack_wait the consumer timeout.
func (b *Broker) Placeholders() map[string]string {
	return map[string]string{
		brokers.PlaceholderURL:     b.URL(),
		brokers.PlaceholderKind:    Name,
		brokers.PlaceholderTopic:   b.opts.Topic,
		brokers.PlaceholderStream:  b.opts.Topic,
		brokers.PlaceholderGroup:   b.opts.Group,
		brokers.PlaceholderAckWait: b.opts.AckWait.String(),
	}
}

// Capabilities: no de-duplication header, DropAck, DelayAck and Reorder.
func (b *Broker) Capabilities() brokers.Capabilities {
	return brokers.Capabilities{Faults: []brokers.FaultKind{brokers.DropAck, brokers.DelayAck, brokers.Reorder}}
}

// Log returns the broker's observations.
func (b *Broker) Log() *brokers.Log { return &b.log }

// Publish sends ev to the queue (through the default exchange) as a
// persistent message, and waits for the node's confirm.
func (b *Broker) Publish(ctx context.Context, ev brokers.Event) (brokers.Receipt, error) {
	return b.pub.Publish(ctx, ev, false)
}

// PublishAgain sends ev again: a second message. RabbitMQ has no
// de-duplication of its own (only as a plugin), so dedup is unsupported.
func (b *Broker) PublishAgain(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	if dedup {
		return brokers.Receipt{}, fmt.Errorf("rabbitmq: publish with a de-duplication header: %w (the node stores every publish)", brokers.ErrUnsupported)
	}
	return b.pub.Publish(ctx, ev, false)
}

func (b *Broker) publishNow(ctx context.Context, ev brokers.Event, _ bool) (brokers.Receipt, error) {
	headers := amqp.Table{}
	for k, v := range ev.Headers {
		headers[k] = v
	}
	headers[brokers.HeaderEventID] = ev.ID
	headers[brokers.HeaderEntity] = ev.Entity()
	b.pubMu.Lock()
	defer b.pubMu.Unlock()
	conf, err := b.ch.PublishWithDeferredConfirmWithContext(ctx, "", b.opts.Topic, true, false, amqp.Publishing{
		MessageId: ev.ID, Headers: headers, Body: ev.Payload, DeliveryMode: amqp.Persistent,
	})
	if err != nil {
		return brokers.Receipt{}, err
	}
	ok, err := conf.WaitContext(ctx)
	if err != nil {
		return brokers.Receipt{}, err
	}
	if !ok {
		return brokers.Receipt{}, errors.New("the node refused the message (nack)")
	}
	return brokers.Receipt{Position: "#" + strconv.FormatUint(conf.DeliveryTag, 10)}, nil
}

// Arm installs f.
func (b *Broker) Arm(f brokers.Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	switch f.Kind {
	case brokers.Reorder:
		b.pub.Arm(f)
	case brokers.DropAck, brokers.DelayAck:
		b.armed.Arm(f)
	default:
		return fmt.Errorf("rabbitmq: fault %s: %w (a queue's consumers compete for messages; nothing is assigned to rebalance)", f.Kind, brokers.ErrUnsupported)
	}
	return nil
}

// Close stops the proxy and the node and removes the directory.
func (b *Broker) Close() error {
	b.closeOnce.Do(func() {
		var errs []error
		b.cancel()
		b.pub.Close()
		if b.proxy != nil {
			errs = append(errs, b.proxy.Close())
		}
		b.holds.Wait()
		if b.conn != nil {
			_ = b.conn.Close()
		}
		if b.node != nil {
			errs = append(errs, b.node.stop())
		}
		if err := os.RemoveAll(b.dir); err != nil {
			errs = append(errs, fmt.Errorf("rabbitmq: remove directory: %w", err))
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}
