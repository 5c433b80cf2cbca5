package nats

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/kit"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

// Name is the broker's name in configuration and placeholders.
const Name = "nats"

// DedupHeader is JetStream's de-duplication header.
const DedupHeader = "Nats-Msg-Id"

// DuplicateWindow is how long JetStream remembers a Nats-Msg-Id.
const DuplicateWindow = 2 * time.Minute

// spec is what the broker supports, and why not the rest.
var spec = kit.Spec{
	Name: Name,
	Capabilities: brokers.Capabilities{DedupHeader: DedupHeader,
		Faults: []brokers.FaultKind{brokers.DropAck, brokers.DelayAck, brokers.Reorder}},
	Unsupported: map[brokers.FaultKind]string{
		brokers.Rebalance: "JetStream has no consumer group to rebalance; a pull consumer's members share its messages",
	},
}

// Broker is an embedded NATS server with JetStream, one stream and one
// durable pull consumer, behind a fault proxy.
type Broker struct {
	kit.Core
	dir   string
	srv   *server.Server
	nc    *natsgo.Conn
	js    jetstream.JetStream
	proxy *tcpproxy.Proxy

	ids kit.IDs[uint64] // positions → event ids

}

var _ brokers.Broker = (*Broker)(nil)

// Start starts an embedded NATS server with JetStream on a free loopback
// port, its store in a new temporary directory, creates the stream (subject
// and name opts.Topic) and the durable consumer (opts.Group, explicit acks,
// AckWait opts.AckWait, unlimited deliveries), and a fault proxy in front
// of it.
func Start(ctx context.Context, opts brokers.Options) (*Broker, error) {
	opts = opts.WithDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "idemcheck-nats-")
	if err != nil {
		return nil, fmt.Errorf("nats: temporary store directory: %w", err)
	}
	b := &Broker{dir: dir}
	b.Init(spec, opts, b.publishNow)
	if err := b.start(ctx); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Broker) start(ctx context.Context) error {
	srv, err := server.NewServer(&server.Options{
		ServerName: "idemcheck", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: b.dir, NoLog: true, NoSigs: true,
		JetStreamMaxMemory: 256 << 20, JetStreamMaxStore: 1 << 30,
	})
	if err != nil {
		return fmt.Errorf("nats: configure server: %w", err)
	}
	b.srv = srv
	srv.Start()
	wait := kit.Timeout(ctx, brokers.DefaultStartTimeout)
	if !srv.ReadyForConnections(wait) {
		return fmt.Errorf("nats: server not ready for connections within %s", wait.Round(time.Millisecond))
	}
	if b.nc, err = natsgo.Connect(srv.ClientURL(), natsgo.Name("idemcheck-broker"), natsgo.MaxReconnects(-1)); err != nil {
		return fmt.Errorf("nats: connect to %s: %w", srv.ClientURL(), err)
	}
	if b.js, err = jetstream.New(b.nc); err != nil {
		return fmt.Errorf("nats: jetstream: %w", err)
	}
	if _, err = b.js.CreateStream(ctx, jetstream.StreamConfig{
		Name: b.Options().Topic, Subjects: []string{b.Options().Topic}, Duplicates: DuplicateWindow,
		Storage: jetstream.FileStorage,
	}); err != nil {
		return fmt.Errorf("nats: create stream %q: %w (a stream name may not contain '.', '*', '>' or spaces)", b.Options().Topic, err)
	}
	if _, err = b.js.CreateOrUpdateConsumer(ctx, b.Options().Topic, jetstream.ConsumerConfig{
		Durable: b.Options().Group, AckPolicy: jetstream.AckExplicitPolicy, AckWait: b.Options().AckWait,
		MaxDeliver: -1, DeliverPolicy: jetstream.DeliverAllPolicy, MaxAckPending: 1000,
	}); err != nil {
		return fmt.Errorf("nats: create durable consumer %q: %w", b.Options().Group, err)
	}
	host := srv.Addr().String()
	if b.proxy, err = tcpproxy.Start(host, tcpproxy.Pipes{Up: b.up, Down: b.down}); err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	return nil
}

// Must starts a broker for a test and closes it when the test ends.
func Must(tb brokers.TB, opts brokers.Options) *Broker {
	tb.Helper()
	return kit.Must(tb, "NATS", nil, Start, opts)
}

// Name returns "nats".
func (b *Broker) Name() string { return Name }

// URL returns the consumer's URL: the fault proxy's nats:// address.
func (b *Broker) URL() string { return "nats://" + b.proxy.Addr() }

// ServerURL returns the server's own address, which bypasses the fault
// proxy (for producers and tools that must not be observed).
func (b *Broker) ServerURL() string { return b.srv.ClientURL() }

// Placeholders returns the broker's placeholder values.
func (b *Broker) Placeholders() map[string]string { return b.Core.Placeholders(b.URL()) }

// Publish (promoted from the core) stores an event on the stream with its
// id as Nats-Msg-Id; PublishAgain without dedup leaves the header out, so
// that JetStream stores a second message, and with dedup keeps it, so that
// JetStream answers it as a duplicate within DuplicateWindow of the first.

func (b *Broker) publishNow(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	m := natsgo.NewMsg(b.Options().Topic)
	m.Data = ev.Payload
	for k, v := range ev.Headers {
		m.Header.Set(k, v)
	}
	m.Header.Set(brokers.HeaderEventID, ev.ID)
	m.Header.Set(brokers.HeaderEntity, ev.Entity())
	if dedup {
		m.Header.Set(DedupHeader, ev.ID)
	}
	ack, err := b.js.PublishMsg(ctx, m)
	if err != nil {
		return brokers.Receipt{}, err
	}
	if !ack.Duplicate {
		b.ids.Learn(ack.Sequence, ev.ID)
	}
	return brokers.Receipt{Duplicate: ack.Duplicate, Position: "seq " + strconv.FormatUint(ack.Sequence, 10)}, nil
}

// Close stops the proxy and the server and removes the store directory.
func (b *Broker) Close() error {
	return b.Shutdown(b.proxy.Close, b.dir,
		func() error {
			if b.nc != nil {
				b.nc.Close()
			}
			return nil
		},
		func() error {
			if b.srv != nil {
				b.srv.Shutdown()
				b.srv.WaitForShutdown()
			}
			return nil
		})
}
