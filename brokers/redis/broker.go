package redis

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/kit"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Name is the broker's name in configuration and placeholders.
const Name = "redis"

// The stream fields of every entry, besides the event's headers.
const (
	FieldEventID = brokers.HeaderEventID
	FieldEntity  = brokers.HeaderEntity
	FieldPayload = "payload"
)

// spec is what the broker supports, and why not the rest.
var spec = kit.Spec{
	Name:         Name,
	Capabilities: brokers.Capabilities{Faults: []brokers.FaultKind{brokers.DropAck, brokers.DelayAck, brokers.Reorder}},
	Unsupported: map[brokers.FaultKind]string{
		brokers.Rebalance: "a Redis Streams group assigns nothing to rebalance: members read and claim entries",
	},
	NoDedup: "XADD stores every call",
}

// Broker is a redis-server child process with one stream and one consumer
// group, behind a RESP proxy.
type Broker struct {
	kit.Core
	dir    string
	server *process.Process
	port   int
	client *goredis.Client
	proxy  *tcpproxy.Proxy

	conns sync.Map // *tcpproxy.Conn → *connState

	ids kit.IDs[string] // positions → event ids

	// open holds the entries delivered and not acked since: a new
	// delivery of one of them gives up the previous one (see deliveries).
	openMu sync.Mutex
	open   map[string]bool
}

var _ brokers.Broker = (*Broker)(nil)

// Start starts redis-server on a free loopback port (in a temporary
// directory, without persistence), creates the stream opts.Topic and the
// group opts.Group reading it from the start, and a RESP proxy in front of
// it. It fails with ErrNotInstalled when there is no redis-server.
func Start(ctx context.Context, opts brokers.Options) (*Broker, error) {
	opts = opts.WithDefaults()
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "idemcheck-redis-")
	if err != nil {
		return nil, fmt.Errorf("redis: temporary directory: %w", err)
	}
	b := &Broker{dir: dir}
	b.Init(spec, opts, b.publishNow)
	if err := b.start(ctx, bin); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Broker) start(ctx context.Context, bin string) error {
	var err error
	if b.server, b.port, err = startServer(ctx, bin, b.dir); err != nil {
		return err
	}
	b.client = goredis.NewClient(&goredis.Options{Addr: b.serverAddr(), MaxRetries: -1})
	if err := b.client.XGroupCreateMkStream(ctx, b.Options().Topic, b.Options().Group, "0").Err(); err != nil {
		return fmt.Errorf("redis: create group %q on stream %q: %w", b.Options().Group, b.Options().Topic, err)
	}
	if b.proxy, err = tcpproxy.Start(b.serverAddr(), tcpproxy.Pipes{Up: b.up, Down: b.down}); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	return nil
}

func (b *Broker) serverAddr() string { return "127.0.0.1:" + strconv.Itoa(b.port) }

// Must starts a broker for a test and closes it when the test ends. It
// skips the test, saying why, when redis-server is not installed.
func Must(tb brokers.TB, opts brokers.Options) *Broker {
	tb.Helper()
	return kit.Must(tb, "Redis", ErrNotInstalled, Start, opts)
}

// Name returns "redis".
func (b *Broker) Name() string { return Name }

// URL returns the consumer's URL: the RESP proxy, as redis://host:port/0.
func (b *Broker) URL() string { return "redis://" + b.proxy.Addr() + "/0" }

// ServerURL returns the server's own URL, which bypasses the proxy.
func (b *Broker) ServerURL() string { return "redis://" + b.serverAddr() + "/0" }

// Placeholders returns the broker's placeholder values; broker.ack_wait is
// the idle time after which a member should claim another member's pending
// entries (XAUTOCLAIM min-idle-time).
func (b *Broker) Placeholders() map[string]string { return b.Core.Placeholders(b.URL()) }

// Publish (promoted from the core) adds an event to the stream;
// PublishAgain adds a second entry (with dedup it is unsupported).

func (b *Broker) publishNow(ctx context.Context, ev brokers.Event, _ bool) (brokers.Receipt, error) {
	values := make([]any, 0, 6+2*len(ev.Headers))
	for k, v := range ev.Headers {
		values = append(values, k, v)
	}
	values = append(values, FieldEventID, ev.ID, FieldEntity, ev.Entity(), FieldPayload, ev.Payload)
	id, err := b.client.XAdd(ctx, &goredis.XAddArgs{Stream: b.Options().Topic, Values: values}).Result()
	if err != nil {
		return brokers.Receipt{}, err
	}
	b.ids.Learn(id, ev.ID)
	return brokers.Receipt{Position: id}, nil
}

// Close stops the proxy and the server and removes the directory.
func (b *Broker) Close() error {
	return b.Shutdown(b.proxy.Close, b.dir,
		func() error {
			if b.client != nil {
				_ = b.client.Close()
			}
			return nil
		},
		func() error {
			if b.server == nil {
				return nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return b.server.Stop(ctx)
		})
}
