package redis_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/redis"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// member is a test group member reading through the proxy.
type member struct {
	t    *testing.T
	cl   *goredis.Client
	name string
	b    *redis.Broker
}

func newMember(t *testing.T, b *redis.Broker, name string) *member {
	t.Helper()
	opt, err := goredis.ParseURL(b.Placeholders()[brokers.PlaceholderURL])
	require.NoError(t, err)
	cl := goredis.NewClient(opt)
	t.Cleanup(func() { _ = cl.Close() })
	return &member{t: t, cl: cl, name: name, b: b}
}

// read reads the next new entry, failing after 10s.
func (m *member) read(ctx context.Context) goredis.XMessage {
	m.t.Helper()
	ph := m.b.Placeholders()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		res, err := m.cl.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: ph[brokers.PlaceholderGroup], Consumer: m.name,
			Streams: []string{ph[brokers.PlaceholderTopic], ">"}, Count: 1, Block: 100 * time.Millisecond}).Result()
		if err == goredis.Nil {
			continue
		}
		require.NoError(m.t, err)
		if len(res) == 1 && len(res[0].Messages) == 1 {
			return res[0].Messages[0]
		}
	}
	m.t.Fatal("no entry within 10s")
	return goredis.XMessage{}
}

// claim claims the group's entries idle for at least idle.
func (m *member) claim(ctx context.Context, idle time.Duration) []goredis.XMessage {
	m.t.Helper()
	ph := m.b.Placeholders()
	msgs, _, err := m.cl.XAutoClaim(ctx, &goredis.XAutoClaimArgs{Stream: ph[brokers.PlaceholderTopic],
		Group: ph[brokers.PlaceholderGroup], Consumer: m.name, MinIdle: idle, Start: "0-0", Count: 10}).Result()
	require.NoError(m.t, err)
	return msgs
}

func (m *member) ack(ctx context.Context, msg goredis.XMessage) {
	m.t.Helper()
	ph := m.b.Placeholders()
	require.NoError(m.t, m.cl.XAck(ctx, ph[brokers.PlaceholderTopic], ph[brokers.PlaceholderGroup], msg.ID).Err())
}

// pending returns the number of the group's pending entries, read from
// the server itself.
func pending(t *testing.T, ctx context.Context, b *redis.Broker) int64 {
	opt, err := goredis.ParseURL(b.ServerURL())
	require.NoError(t, err)
	cl := goredis.NewClient(opt)
	defer cl.Close()
	p, err := cl.XPending(ctx, brokers.DefaultTopic, brokers.DefaultGroup).Result()
	require.NoError(t, err)
	return p.Count
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func event(id string) brokers.Event {
	return brokers.Event{ID: id, Payload: []byte(`{"description":"idem-0000000000000001"}`), Headers: map[string]string{"Trace": "t1"}}
}

func TestPublishReadAckObserved(t *testing.T) {
	b := redis.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	rec, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	m := newMember(t, b, "a")
	msg := m.read(ctx)
	assert.Equal(t, rec.Position, msg.ID)
	assert.Equal(t, "evt_1", msg.Values[redis.FieldEventID])
	assert.Equal(t, `{"description":"idem-0000000000000001"}`, msg.Values[redis.FieldPayload])
	assert.Equal(t, "t1", msg.Values["Trace"])
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "evt_1", 1))
	m.ack(ctx, msg)
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	assert.Equal(t, int64(0), pending(t, ctx, b))
}

func TestPublishAgainIsASecondEntry(t *testing.T) {
	b := redis.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	first, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	_, err = b.PublishAgain(ctx, event("evt_1"), true)
	assert.ErrorIs(t, err, brokers.ErrUnsupported)
	again, err := b.PublishAgain(ctx, event("evt_1"), false)
	require.NoError(t, err)
	assert.NotEqual(t, first.Position, again.Position)
}

func TestDropAckLeavesTheEntryPendingForAClaim(t *testing.T) {
	b := redis.Must(t, brokers.Options{AckWait: 200 * time.Millisecond})
	ctx := waitCtx(t)
	a, other := newMember(t, b, "a"), newMember(t, b, "b")
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	msg := a.read(ctx)
	a.ack(ctx, msg) // rewritten: the consumer gets a reply, the entry stays pending
	require.NoError(t, b.Log().Wait(ctx, brokers.AckDropped, "evt_1", 1))
	assert.Equal(t, int64(1), pending(t, ctx, b))

	// Another member claims it once it has been idle for the ack wait.
	var claimed []goredis.XMessage
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for claimed = other.claim(ctx, 200*time.Millisecond); len(claimed) == 0; claimed = other.claim(ctx, 200*time.Millisecond) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the entry was never claimable")
		}
	}
	assert.Equal(t, "evt_1", claimed[0].Values[redis.FieldEventID])
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "evt_1", 2))
	other.ack(ctx, claimed[0])
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	assert.Equal(t, int64(0), pending(t, ctx, b))
}

// An entry left pending (not acked) and claimed is recorded as nacked,
// then delivered again; an entry whose ack was dropped is not nacked
// again when it is claimed: its delivery ended with the dropped ack.
func TestClaimOfAnEntryLeftPendingIsANack(t *testing.T) {
	b := redis.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	a, other := newMember(t, b, "a"), newMember(t, b, "b")
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: "evt_2"}))
	for _, id := range []string{"evt_1", "evt_2"} {
		_, err := b.Publish(ctx, event(id))
		require.NoError(t, err)
	}
	first := a.read(ctx)  // evt_1: left pending, as after a failed effect
	second := a.read(ctx) // evt_2: its ack dropped
	a.ack(ctx, second)
	require.NoError(t, b.Log().Wait(ctx, brokers.AckDropped, "evt_2", 1))
	claimed := other.claim(ctx, 0)
	require.Len(t, claimed, 2)
	require.NoError(t, b.Log().Wait(ctx, brokers.Delivered, "evt_2", 2))
	kinds := func(id string) []brokers.Kind {
		var out []brokers.Kind
		for _, o := range b.Log().Observations() {
			if o.EventID == id && o.Kind != brokers.Published {
				out = append(out, o.Kind)
			}
		}
		return out
	}
	assert.Equal(t, []brokers.Kind{brokers.Delivered, brokers.Nacked, brokers.Delivered}, kinds("evt_1"))
	assert.Equal(t, []brokers.Kind{brokers.Delivered, brokers.AckDropped, brokers.Delivered}, kinds("evt_2"))
	assert.Equal(t, first.ID, claimed[0].ID)
}

func TestAckedEntryIsNotClaimed(t *testing.T) {
	b := redis.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	a, other := newMember(t, b, "a"), newMember(t, b, "b")
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	a.ack(ctx, a.read(ctx))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	assert.Empty(t, other.claim(ctx, 0), "nothing pending to claim")
}

func TestDelayAckIsPassedOnAfterTheClaim(t *testing.T) {
	b := redis.Must(t, brokers.Options{})
	ctx := waitCtx(t)
	a, other := newMember(t, b, "a"), newMember(t, b, "b")
	require.NoError(t, b.Arm(brokers.Fault{Kind: brokers.DelayAck, EventID: "evt_1"}))
	_, err := b.Publish(ctx, event("evt_1"))
	require.NoError(t, err)
	a.ack(ctx, a.read(ctx))
	require.NoError(t, b.Log().Wait(ctx, brokers.AckHeld, "evt_1", 1))
	claimed := other.claim(ctx, 0)
	require.Len(t, claimed, 1, "the held ack left the entry pending")
	require.NoError(t, b.Log().Wait(ctx, brokers.AckReleased, "evt_1", 1))
	require.NoError(t, b.Log().Wait(ctx, brokers.Acked, "evt_1", 1))
	assert.Equal(t, int64(0), pending(t, ctx, b), "the late ack settled it")
}

func TestRedisRejectsRebalance(t *testing.T) {
	b := redis.Must(t, brokers.Options{})
	assert.ErrorIs(t, b.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: "e"}), brokers.ErrUnsupported)
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	if _, err := redis.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-redis-*"))
	b, err := redis.Start(context.Background(), brokers.Options{})
	require.NoError(t, err)
	server := b.ServerURL()
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	opt, err := goredis.ParseURL(server)
	require.NoError(t, err)
	cl := goredis.NewClient(opt)
	defer cl.Close()
	assert.Error(t, cl.Ping(context.Background()).Err(), "the server is gone")
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-redis-*"))
	assert.Equal(t, before, after)
}
