package brokers_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
)

func TestLogRecordsInOrderAndCounts(t *testing.T) {
	var l brokers.Log
	a := l.Record(brokers.Observation{Kind: brokers.Published, EventID: "e1"})
	b := l.Record(brokers.Observation{Kind: brokers.Delivered, EventID: "e1", Attempt: 1})
	l.Record(brokers.Observation{Kind: brokers.Delivered, EventID: "e2"})
	assert.Equal(t, int64(1), a.Seq)
	assert.Equal(t, int64(2), b.Seq)
	assert.False(t, a.At.IsZero(), "Record stamps the time")
	assert.Equal(t, 1, l.Count(brokers.Delivered, "e1"))
	assert.Equal(t, 0, l.Count(brokers.Acked, "e1"))
	obs := l.Observations()
	require.Len(t, obs, 3)
	obs[0].EventID = "changed"
	assert.Equal(t, "e1", l.Observations()[0].EventID, "Observations returns a copy")
}

func TestLogWaitReturnsOnceRecorded(t *testing.T) {
	var l brokers.Log
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 3 {
			l.Record(brokers.Observation{Kind: brokers.Delivered, EventID: "other"})
		}
		l.Record(brokers.Observation{Kind: brokers.Acked, EventID: "e1"})
		l.Record(brokers.Observation{Kind: brokers.Acked, EventID: "e1"})
	}()
	require.NoError(t, l.Wait(ctx, brokers.Acked, "e1", 2))
	wg.Wait()
}

func TestLogWaitSaysWhatItSawWhenTheContextEnds(t *testing.T) {
	var l brokers.Log
	l.Record(brokers.Observation{Kind: brokers.Delivered, EventID: "e1"})
	l.Record(brokers.Observation{Kind: brokers.AckDropped, EventID: "e1"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := l.Wait(ctx, brokers.Acked, "e1", 1)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled))
	assert.Contains(t, err.Error(), `expected 1 "acked" observation(s) of event "e1", saw 0`)
	assert.Contains(t, err.Error(), "recorded: delivered, ack-dropped")

	err = l.Wait(ctx, brokers.Acked, "e9", 1)
	assert.Contains(t, err.Error(), "nothing recorded for it")
}

func TestFaultValidate(t *testing.T) {
	for _, tc := range []struct {
		why   string
		fault brokers.Fault
		err   string
	}{
		{"a known kind for one event", brokers.Fault{Kind: brokers.DropAck, EventID: "e"}, ""},
		{"a hold within bounds", brokers.Fault{Kind: brokers.DelayAck, EventID: "e", Hold: time.Minute}, ""},
		{"an unknown kind lists the kinds", brokers.Fault{Kind: "lose", EventID: "e"}, "expected one of drop-ack, delay-ack, rebalance, reorder"},
		{"a fault is for one event", brokers.Fault{Kind: brokers.Reorder}, "event id is empty"},
		{"a negative hold", brokers.Fault{Kind: brokers.DelayAck, EventID: "e", Hold: -time.Second}, "out of range"},
		{"a hold past the maximum", brokers.Fault{Kind: brokers.DelayAck, EventID: "e", Hold: time.Hour}, "out of range"},
	} {
		err := tc.fault.Validate()
		if tc.err == "" {
			assert.NoError(t, err, tc.why)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.why)
		}
	}
	assert.Equal(t, brokers.DefaultHold, brokers.Fault{}.HoldOrDefault())
	assert.Equal(t, time.Second, brokers.Fault{Hold: time.Second}.HoldOrDefault())
}

func TestOptionsDefaultsAndEntity(t *testing.T) {
	o := brokers.Options{}.WithDefaults()
	assert.Equal(t, brokers.DefaultTopic, o.Topic)
	assert.Equal(t, brokers.DefaultGroup, o.Group)
	assert.Equal(t, brokers.DefaultAckWait, o.AckWait)
	assert.Equal(t, "e1", brokers.Event{ID: "e1"}.Entity())
	assert.Equal(t, "order_1", brokers.Event{ID: "e1", Key: "order_1"}.Entity())
	caps := brokers.Capabilities{Faults: []brokers.FaultKind{brokers.DropAck}}
	assert.True(t, caps.Supports(brokers.DropAck))
	assert.False(t, caps.Supports(brokers.Rebalance))
}

func TestLogWaitTotalCountsEveryEvent(t *testing.T) {
	var l brokers.Log
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		for i := range 5 {
			l.Record(brokers.Observation{Kind: brokers.Acked, EventID: string(rune('a' + i))})
			l.Record(brokers.Observation{Kind: brokers.Delivered, EventID: "x"})
		}
	}()
	require.NoError(t, l.WaitTotal(ctx, brokers.Acked, 5))
	short, stop := context.WithCancel(context.Background())
	stop()
	assert.ErrorContains(t, l.WaitTotal(short, brokers.Acked, 6), `expected 6 "acked" observation(s) in all, saw 5`)
}
