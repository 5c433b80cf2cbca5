package kafka

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/kit"
	"github.com/idemcheck/idemcheck/brokers/internal/reorder"
)

// Name is the broker's name in configuration and placeholders.
const Name = "kafka"

// MinSessionTimeout is the shortest group session timeout the broker
// accepts, so that a consumer can be configured to notice a dead member
// quickly.
const MinSessionTimeout = 100 * time.Millisecond

// spec is what the broker supports, and why not the rest.
var spec = kit.Spec{
	Name: Name,
	Capabilities: brokers.Capabilities{Groups: true,
		Faults: []brokers.FaultKind{brokers.DropAck, brokers.Rebalance, brokers.Reorder}},
	Unsupported: map[brokers.FaultKind]string{
		brokers.DelayAck: "Kafka has no per-message ack deadline: a late commit redelivers nothing until a rebalance or restart; use DropAck with Rebalance",
	},
	NoDedup: "the idempotent producer de-duplicates only its own in-session retries; a second publish is a second record",
}

// Broker is an in-process Kafka cluster (kfake) with one topic, observed
// and steered through kfake's request control hooks.
type Broker struct {
	kit.Core
	cluster *kfake.Cluster
	client  *kgo.Client
	// batch produces a burst's copies, flushed by hand so that they go
	// in one produce request (see PublishCopies); batchMu makes each
	// flush one burst's.
	batch   *kgo.Client
	batchMu sync.Mutex
	topicID [16]byte

	mu         sync.Mutex
	parts      map[int32]*partition
	rebalance  bool // answer heartbeats with REBALANCE_IN_PROGRESS until a member rejoins
	rebalEvent string
}

var (
	_ brokers.Broker          = (*Broker)(nil)
	_ brokers.CopiesPublisher = (*Broker)(nil)
)

// Start starts a one-node kfake cluster on a free loopback port with the
// topic opts.Topic (opts.Partitions partitions, default 1), and installs
// the control hooks that observe fetches and offset commits.
func Start(ctx context.Context, opts brokers.Options) (*Broker, error) {
	opts = opts.WithDefaults()
	if opts.Partitions <= 0 {
		opts.Partitions = 1
	}
	if opts.Partitions > 64 {
		return nil, fmt.Errorf("kafka: %d partitions; expected 1 to 64", opts.Partitions)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(int32(opts.Partitions), opts.Topic),
		kfake.GroupMinSessionTimeout(MinSessionTimeout))
	if err != nil {
		return nil, fmt.Errorf("kafka: start kfake cluster: %w", err)
	}
	b := &Broker{cluster: cluster, parts: map[int32]*partition{}}
	b.Init(spec, opts, b.publishNow)
	if err := b.start(ctx); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Broker) start(ctx context.Context) error {
	var err error
	b.client, err = kgo.NewClient(kgo.SeedBrokers(b.cluster.ListenAddrs()...), kgo.DefaultProduceTopic(b.Options().Topic),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(0))
	if err != nil {
		return fmt.Errorf("kafka: producer client: %w", err)
	}
	b.batch, err = kgo.NewClient(kgo.SeedBrokers(b.cluster.ListenAddrs()...), kgo.DefaultProduceTopic(b.Options().Topic),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ManualFlushing())
	if err != nil {
		return fmt.Errorf("kafka: producer client: %w", err)
	}
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(b.Options().Topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, b.client)
	if err != nil {
		return fmt.Errorf("kafka: metadata for topic %q: %w", b.Options().Topic, err)
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		return fmt.Errorf("kafka: topic %q was not created: %+v", b.Options().Topic, resp.Topics)
	}
	b.topicID = resp.Topics[0].TopicID
	b.cluster.ControlKey(kmsg.Fetch.Int16(), b.onFetch)
	b.cluster.ControlKey(kmsg.OffsetCommit.Int16(), b.onCommit)
	b.cluster.ControlKey(kmsg.Heartbeat.Int16(), b.onHeartbeat)
	b.cluster.ControlKey(kmsg.JoinGroup.Int16(), b.onJoin)
	return nil
}

// Must starts a broker for a test and closes it when the test ends.
func Must(tb brokers.TB, opts brokers.Options) *Broker {
	tb.Helper()
	return kit.Must(tb, "Kafka (kfake)", nil, Start, opts)
}

// Name returns "kafka".
func (b *Broker) Name() string { return Name }

// URL returns the seed brokers, comma-separated host:port.
func (b *Broker) URL() string { return strings.Join(b.cluster.ListenAddrs(), ",") }

// Placeholders returns the broker's placeholder values; broker.ack_wait is
// the session timeout a consumer should use.
func (b *Broker) Placeholders() map[string]string { return b.Core.Placeholders(b.URL()) }

// Publish (promoted from the core) produces an event to the topic, keyed
// by its entity; PublishAgain produces a second record (with dedup it is
// unsupported).

func (b *Broker) publishNow(ctx context.Context, ev brokers.Event, _ bool) (brokers.Receipt, error) {
	rec := record(ev)
	if err := b.client.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return brokers.Receipt{}, err
	}
	return b.stored(rec, ev.ID), nil
}

// record is the Kafka record of ev, keyed by its entity.
func record(ev brokers.Event) *kgo.Record {
	rec := &kgo.Record{Key: []byte(ev.Entity()), Value: ev.Payload}
	for k, v := range ev.Headers {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
	}
	rec.Headers = append(rec.Headers,
		kgo.RecordHeader{Key: brokers.HeaderEventID, Value: []byte(ev.ID)},
		kgo.RecordHeader{Key: brokers.HeaderEntity, Value: []byte(ev.Entity())})
	return rec
}

// stored notes rec, produced for event id, in its partition.
func (b *Broker) stored(rec *kgo.Record, id string) brokers.Receipt {
	b.mu.Lock()
	defer b.mu.Unlock()
	pt := b.part(rec.Partition)
	pt.add(rec.Offset, id)
	// A fast member may have fetched or committed past the record before
	// its produce response came back.
	if rec.Offset < pt.fetched {
		b.deliveredLocked(pt, rec.Offset, id, "fetched before the produce response")
	}
	if rec.Offset < pt.committed {
		delete(pt.unacked, rec.Offset)
		b.Record(brokers.Observation{Kind: brokers.Acked, EventID: id, Detail: "offset commit before the produce response"})
	}
	return brokers.Receipt{Position: strconv.Itoa(int(rec.Partition)) + "@" + strconv.FormatInt(rec.Offset, 10)}
}

// PublishCopies implements brokers.CopiesPublisher: the n copies go in
// one produce request, and are stored as one record batch, which a
// member fetches whole: a consumer that processes the records of a poll
// side by side gets them all at once, as it would get the copies of a
// producer's retries that reached the broker together. Published one at
// a time, the first copy is fetched alone by a member waiting for
// records, and the copies never meet.
func (b *Broker) PublishCopies(ctx context.Context, ev brokers.Event, n int) ([]brokers.Receipt, error) {
	if ev.ID == "" {
		return nil, fmt.Errorf("publish: the event id is empty; every event needs one")
	}
	if n < 1 || n > 1000 {
		return nil, fmt.Errorf("publish %s: %d copies; expected 1 to 1000", ev.ID, n)
	}
	if b.Life().Err() != nil {
		return nil, fmt.Errorf("publish %s: %w", ev.ID, brokers.ErrClosed)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, reorder.DefaultPublishTimeout)
		defer cancel()
	}
	b.batchMu.Lock()
	defer b.batchMu.Unlock()
	recs := make([]*kgo.Record, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range recs {
		recs[i] = record(ev)
		wg.Add(1)
		b.batch.Produce(ctx, recs[i], func(_ *kgo.Record, err error) {
			errs[i] = err
			wg.Done()
		})
	}
	if err := b.batch.Flush(ctx); err != nil {
		// Failed, not left to be produced later, unknown to the
		// partitions' bookkeeping.
		_ = b.batch.AbortBufferedRecords(context.Background())
		return nil, fmt.Errorf("publish %s: %w", ev.ID, err)
	}
	wg.Wait()
	out := make([]brokers.Receipt, 0, n)
	for i, rec := range recs {
		if errs[i] != nil {
			return out, fmt.Errorf("publish %s: %w", ev.ID, errs[i])
		}
		r := b.stored(rec, ev.ID)
		b.Record(brokers.Observation{Kind: brokers.Published, EventID: ev.ID, Detail: r.Position})
		out = append(out, r)
	}
	return out, nil
}

// Arm installs f. A Rebalance armed for an event that has already been
// fetched starts at once.
func (b *Broker) Arm(f brokers.Fault) error {
	if err := b.Core.Arm(f); err != nil {
		return err
	}
	if f.Kind == brokers.Rebalance {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.fetchedLocked(f.EventID) {
			if _, ok := b.Take(brokers.Rebalance, f.EventID); ok {
				b.startRebalanceLocked(f.EventID)
			}
		}
	}
	return nil
}

// Close stops the cluster.
func (b *Broker) Close() error {
	return b.Shutdown(func() error { return nil }, "",
		func() error {
			if b.client != nil {
				b.client.Close()
			}
			if b.batch != nil {
				b.batch.Close()
			}
			return nil
		},
		func() error {
			b.cluster.Close()
			return nil
		})
}
