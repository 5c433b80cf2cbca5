package redis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/armed"
	"github.com/idemcheck/idemcheck/brokers/internal/reorder"
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

// Broker is a redis-server child process with one stream and one consumer
// group, behind a RESP proxy.
type Broker struct {
	opts   brokers.Options
	dir    string
	server *process.Process
	port   int
	client *goredis.Client
	proxy  *tcpproxy.Proxy
	log    brokers.Log
	armed  armed.Set
	pub    *reorder.Publisher

	conns sync.Map // *tcpproxy.Conn → *connState

	idsMu sync.Mutex
	ids   map[string]string // entry id → event id

	life   context.Context
	cancel context.CancelFunc
	holds  sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
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
	b := &Broker{opts: opts, dir: dir, ids: map[string]string{}}
	b.life, b.cancel = context.WithCancel(context.Background())
	b.pub = reorder.New(b.publishNow, &b.log)
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
	if err := b.client.XGroupCreateMkStream(ctx, b.opts.Topic, b.opts.Group, "0").Err(); err != nil {
		return fmt.Errorf("redis: create group %q on stream %q: %w", b.opts.Group, b.opts.Topic, err)
	}
	if b.proxy, err = tcpproxy.Start(b.serverAddr(), tcpproxy.Pipes{Up: b.up, Down: b.down}); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	return nil
}

// timeoutUnit scales the broker's own short waits.
const timeoutUnit = time.Second

func timeoutOf(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d)
	}
	return brokers.DefaultStartTimeout
}

func (b *Broker) serverAddr() string { return "127.0.0.1:" + strconv.Itoa(b.port) }

// Must starts a broker for a test and closes it when the test ends. It
// skips the test, saying why, when redis-server is not installed.
func Must(tb brokers.TB, opts brokers.Options) *Broker {
	tb.Helper()
	if _, err := Find(); err != nil {
		tb.Skipf("skipping: %v", err)
	}
	b, err := Start(context.Background(), opts)
	if err != nil {
		tb.Fatalf("starting Redis: %v", err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("stopping Redis: %v", err)
		}
	})
	return b
}

// Name returns "redis".
func (b *Broker) Name() string { return Name }

// URL returns the consumer's URL: the RESP proxy, as redis://host:port/0.
func (b *Broker) URL() string { return "redis://" + b.proxy.Addr() + "/0" }

// ServerURL returns the server's own URL, which bypasses the proxy.
func (b *Broker) ServerURL() string { return "redis://" + b.serverAddr() + "/0" }

// Placeholders returns the broker's placeholder values; broker.ack_wait is
// the idle time after which a member should claim another's pending
// entries (XAUTOCLAIM min-idle-time).
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

// Publish adds ev to the stream.
func (b *Broker) Publish(ctx context.Context, ev brokers.Event) (brokers.Receipt, error) {
	return b.pub.Publish(ctx, ev, false)
}

// PublishAgain adds ev again: a second entry. Redis Streams have no
// de-duplication of their own, so dedup is unsupported.
func (b *Broker) PublishAgain(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	if dedup {
		return brokers.Receipt{}, fmt.Errorf("redis: publish with a de-duplication header: %w (XADD stores every call)", brokers.ErrUnsupported)
	}
	return b.pub.Publish(ctx, ev, false)
}

func (b *Broker) publishNow(ctx context.Context, ev brokers.Event, _ bool) (brokers.Receipt, error) {
	values := make([]any, 0, 6+2*len(ev.Headers))
	for k, v := range ev.Headers {
		values = append(values, k, v)
	}
	values = append(values, FieldEventID, ev.ID, FieldEntity, ev.Entity(), FieldPayload, ev.Payload)
	id, err := b.client.XAdd(ctx, &goredis.XAddArgs{Stream: b.opts.Topic, Values: values}).Result()
	if err != nil {
		return brokers.Receipt{}, err
	}
	b.learn(id, ev.ID)
	return brokers.Receipt{Position: id}, nil
}

func (b *Broker) learn(entryID, eventID string) {
	b.idsMu.Lock()
	b.ids[entryID] = eventID
	b.idsMu.Unlock()
}

func (b *Broker) eventAt(entryID string) string {
	b.idsMu.Lock()
	defer b.idsMu.Unlock()
	return b.ids[entryID]
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
		return fmt.Errorf("redis: fault %s: %w (a Redis Streams group assigns nothing to rebalance: members read and claim entries)", f.Kind, brokers.ErrUnsupported)
	}
	return nil
}

// Close stops the proxy and the server and removes the directory.
func (b *Broker) Close() error {
	b.closeOnce.Do(func() {
		var errs []error
		b.cancel()
		b.pub.Close()
		if b.proxy != nil {
			errs = append(errs, b.proxy.Close())
		}
		b.holds.Wait()
		if b.client != nil {
			_ = b.client.Close()
		}
		if b.server != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			errs = append(errs, b.server.Stop(ctx))
			cancel()
		}
		if err := os.RemoveAll(b.dir); err != nil {
			errs = append(errs, fmt.Errorf("redis: remove directory: %w", err))
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}
