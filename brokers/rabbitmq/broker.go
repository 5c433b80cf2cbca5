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
	"github.com/idemcheck/idemcheck/brokers/internal/kit"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

// Name is the broker's name in configuration and placeholders.
const Name = "rabbitmq"

// spec is what the broker supports, and why not the rest.
var spec = kit.Spec{
	Name:         Name,
	Capabilities: brokers.Capabilities{Faults: []brokers.FaultKind{brokers.DropAck, brokers.DelayAck, brokers.Reorder}},
	Unsupported: map[brokers.FaultKind]string{
		brokers.Rebalance: "a queue's consumers compete for messages; nothing is assigned to rebalance",
	},
	NoDedup: "the node stores every publish; de-duplication is only a plugin",
}

// Broker is a private RabbitMQ node with one durable queue, behind an
// AMQP 0-9-1 proxy.
type Broker struct {
	kit.Core
	dir   string
	node  *node
	conn  *amqp.Connection
	proxy *tcpproxy.Proxy

	pubMu sync.Mutex
	ch    *amqp.Channel

	conns sync.Map // *tcpproxy.Conn → *connState

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
	b := &Broker{dir: dir}
	b.Init(spec, opts, b.publishNow)
	if err := b.start(ctx, serverBin, epmdBin); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Broker) start(ctx context.Context, serverBin, epmdBin string) error {
	var err error
	if b.node, err = startNode(ctx, serverBin, epmdBin, b.dir, b.Options().AckWait); err != nil {
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
	if _, err := b.ch.QueueDeclare(b.Options().Topic, true, false, false, false, nil); err != nil {
		return fmt.Errorf("rabbitmq: declare queue %q: %w", b.Options().Topic, err)
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
	return kit.Must(tb, "RabbitMQ", ErrNotInstalled, Start, opts)
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
func (b *Broker) Placeholders() map[string]string { return b.Core.Placeholders(b.URL()) }

// Publish (promoted from the core) sends an event to the queue through
// the default exchange as a persistent message and waits for the node's
// confirm; PublishAgain sends a second message (with dedup it is
// unsupported).

func (b *Broker) publishNow(ctx context.Context, ev brokers.Event, _ bool) (brokers.Receipt, error) {
	headers := amqp.Table{}
	for k, v := range ev.Headers {
		headers[k] = v
	}
	headers[brokers.HeaderEventID] = ev.ID
	headers[brokers.HeaderEntity] = ev.Entity()
	b.pubMu.Lock()
	defer b.pubMu.Unlock()
	conf, err := b.ch.PublishWithDeferredConfirmWithContext(ctx, "", b.Options().Topic, true, false, amqp.Publishing{
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

// Close stops the proxy and the node and removes the directory.
func (b *Broker) Close() error {
	return b.Shutdown(b.proxy.Close, b.dir,
		func() error {
			if b.conn != nil {
				_ = b.conn.Close()
			}
			return nil
		},
		func() error {
			if b.node == nil {
				return nil
			}
			return b.node.stop()
		})
}
