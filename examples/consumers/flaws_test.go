package consumers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/fakes"
)

// Each scenario runs every profile on NATS, Kafka, Redis Streams and
// RabbitMQ and asserts the
// charges it leaves per event: 1 is right, 2 is a duplicate, 0 a lost
// event. Each profile plants one flaw, so each scenario catches some
// profiles and clears the others: the checks are shown both ways.
var testBrokers = []string{"nats", "kafka", "redis", "rabbitmq"}

func forEach(t *testing.T, want map[string]int, run func(t *testing.T, kind, profile string) int) {
	for _, kind := range testBrokers {
		for _, profile := range []string{"correct", "memory", "mark-first", "check-then-insert", "ack-first", "none"} {
			n, ok := want[profile]
			if !ok {
				continue
			}
			t.Run(kind+"/"+profile, func(t *testing.T) {
				// Each has a broker of its own; the RabbitMQ node and its
				// queue are shared, so its rigs take turns (rabbitTurn).
				t.Parallel()
				assert.Equal(t, n, run(t, kind, profile), "charges for the event")
			})
		}
	}
}

// A crash after the charge and before the ack: the broker redelivers to
// the restarted consumer, which must not charge again.
func TestCrashAfterEffect(t *testing.T) {
	t.Parallel()
	forEach(t, map[string]int{
		"correct": 1, "memory": 2, "mark-first": 1, "check-then-insert": 2, "ack-first": 1, "none": 2,
	}, func(t *testing.T, kind, profile string) int {
		return crash(t, kind, profile, (*rig).killOnCharge)
	})
}

// A crash after the consumer took the event and before its charge: the
// broker must redeliver it, and the consumer must charge then.
func TestCrashBeforeEffect(t *testing.T) {
	t.Parallel()
	forEach(t, map[string]int{
		"correct": 1, "memory": 1, "mark-first": 0, "check-then-insert": 1, "ack-first": 0, "none": 1,
	}, func(t *testing.T, kind, profile string) int {
		return crash(t, kind, profile, (*rig).killBeforeCharge)
	})
}

// crash publishes one event, lets kill crash the consumer at its point,
// restarts the consumer and returns the event's charges once the broker
// has seen it acked.
func crash(t *testing.T, kind, profile string, kill func(*rig, *member, string) <-chan struct{}) int {
	r := newRig(t, kind, profile)
	m := r.start("a", 1, false)
	ev, marker := r.event()
	dead := kill(r, m, marker)
	r.publish(ev)
	r.await(dead, "the crash")
	r.restart(m)
	r.waitAcked(ev, 1)
	return r.charges(marker)
}

// A producer that retried its publish without a de-duplication header:
// the same event twice in a row.
func TestDuplicatePublish(t *testing.T) {
	t.Parallel()
	forEach(t, map[string]int{
		"correct": 1, "memory": 1, "mark-first": 1, "check-then-insert": 1, "ack-first": 1, "none": 2,
	}, func(t *testing.T, kind, profile string) int {
		r := newRig(t, kind, profile)
		r.start("a", 1, false)
		ev, marker := r.event()
		r.publish(ev)
		_, err := r.broker.PublishAgain(r.ctx, ev, false)
		require.NoError(t, err)
		r.waitAcked(ev, 2)
		return r.charges(marker)
	})
}

// With JetStream's own de-duplication header the broker drops the retried
// publish: even the consumer without de-duplication charges once.
func TestDuplicatePublishDroppedByNATS(t *testing.T) {
	t.Parallel()
	r := newRig(t, "nats", "none")
	r.start("a", 1, false)
	ev, marker := r.event()
	r.publish(ev)
	rec, err := r.broker.PublishAgain(r.ctx, ev, true)
	require.NoError(t, err)
	assert.True(t, rec.Duplicate)
	r.waitAcked(ev, 1)
	assert.Equal(t, 1, r.charges(marker))
}

// The redelivery arrives while the first delivery is still charging
// (payments is slower than the ack deadline), and the consumer processes
// both at once.
func TestConcurrentRedelivery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		profile string
		want    int
	}{{"correct", 1}, {"memory", 1}, {"check-then-insert", 2}, {"none", 2}} {
		for _, kind := range []string{"nats", "rabbitmq"} {
			t.Run(kind+"/"+tc.profile, func(t *testing.T) {
				t.Parallel() // RabbitMQ's rigs share its node and take turns (rabbitTurn)
				r := newRig(t, kind, tc.profile)
				r.start("a", 4, false)
				ev, marker := r.event()
				r.pay.Arm(fakes.Rule{Marker: marker, Action: fakes.Delay, Delay: 3 * ackWait})
				r.publish(ev)
				require.NoError(t, r.broker.Log().Wait(r.ctx, brokers.Delivered, ev.ID, 2), "redelivered past the ack deadline")
				if tc.want > 1 {
					r.waitCharges(marker, tc.want)
				}
				r.waitQuiet(ev)
				assert.Equal(t, tc.want, r.charges(marker))
			})
		}
	}
}

// The ack of the first member is lost; the member leaves, and another
// member (with its own state directory) gets the event.
func TestLostAckThenAnotherMember(t *testing.T) {
	t.Parallel()
	forEach(t, map[string]int{"correct": 1, "memory": 2}, func(t *testing.T, kind, profile string) int {
		r := newRig(t, kind, profile)
		a := r.start("a", 1, true)
		ev, marker := r.event()
		require.NoError(t, r.broker.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: ev.ID}))
		r.publish(ev)
		require.NoError(t, r.broker.Log().Wait(r.ctx, brokers.AckDropped, ev.ID, 1))
		require.NoError(t, a.proc.Stop(r.ctx))
		r.start("b", 1, true)
		r.waitAcked(ev, 1)
		return r.charges(marker)
	})
}

// The group rebalances while the event is being processed (its charge is
// slow): the eager member reads its partition again from the committed
// offset, and gets the event a second time once the first is done.
func TestRebalanceDuringProcessing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		profile string
		want    int
	}{{"correct", 1}, {"memory", 1}, {"check-then-insert", 1}, {"none", 2}} {
		t.Run("kafka/"+tc.profile, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, "kafka", tc.profile)
			r.start("a", 1, false)
			ev, marker := r.event()
			r.pay.Arm(fakes.Rule{Marker: marker, Action: fakes.Delay, Delay: 2 * ackWait})
			require.NoError(t, r.broker.Arm(brokers.Fault{Kind: brokers.Rebalance, EventID: ev.ID}))
			r.publish(ev)
			require.NoError(t, r.broker.Log().Wait(r.ctx, brokers.Rebalanced, ev.ID, 1))
			require.NoError(t, r.broker.Log().Wait(r.ctx, brokers.Delivered, ev.ID, 2), "read again after the rebalance")
			// The member processes its partition in order: once an event
			// published after the redelivery is acked, the redelivery has
			// been processed. (One commit may cover both deliveries, so
			// the acks of the event itself do not say.)
			next, _ := r.event()
			r.publish(next)
			r.waitAcked(next, 1)
			assert.Equal(t, tc.want, r.charges(marker))
		})
	}
}

// Two events of one entity, the earlier held back by the broker
// (brokers.Reorder) and stored right after the later one: the consumer
// that de-duplicates by event id charges both, the one that keeps a
// high-water mark of Event-Seq per entity skips the earlier one, acked
// and never charged.
func TestReorderedEntity(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"nats", "kafka"} {
		for profile, want := range map[string]int{"correct": 1, "high-water-mark": 0} {
			t.Run(kind+"/"+profile, func(t *testing.T) {
				t.Parallel()
				r := newRig(t, kind, profile)
				r.start("a", 1, false)
				early, earlyMarker := r.event()
				later, laterMarker := r.event()
				early.Key, later.Key = "ord_"+early.ID, "ord_"+early.ID
				early.Headers = map[string]string{"Event-Seq": "1"}
				later.Headers = map[string]string{"Event-Seq": "2"}
				require.NoError(t, r.broker.Arm(brokers.Fault{Kind: brokers.Reorder, EventID: early.ID}))
				r.publish(early)
				r.publish(later)
				r.waitAcked(early, 1)
				r.waitQuiet(early)
				r.waitQuiet(later)
				assert.Equal(t, 1, r.charges(laterMarker), "charges for the later event")
				assert.Equal(t, want, r.charges(earlyMarker), "charges for the earlier event")
			})
		}
	}
}
