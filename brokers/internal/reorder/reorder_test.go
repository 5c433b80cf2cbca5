package reorder_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/reorder"
)

// stored records the order in which events reach the broker.
type stored struct {
	mu   sync.Mutex
	ids  []string
	fail error
	got  chan string
}

func (s *stored) publish(_ context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return brokers.Receipt{}, s.fail
	}
	s.ids = append(s.ids, ev.ID)
	if s.got != nil {
		s.got <- ev.ID
	}
	return brokers.Receipt{Position: ev.ID, Duplicate: dedup && len(s.ids) > 1 && s.ids[len(s.ids)-2] == ev.ID}, nil
}

func (s *stored) order() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ids...)
}

func TestHeldEventFollowsTheNextOfItsEntity(t *testing.T) {
	var log brokers.Log
	s := &stored{}
	p := reorder.New(s.publish, &log)
	defer p.Close()
	ctx := context.Background()
	p.Arm(brokers.Fault{Kind: brokers.Reorder, EventID: "a1"})
	rec, err := p.Publish(ctx, brokers.Event{ID: "a1", Key: "A"}, false)
	require.NoError(t, err)
	assert.Equal(t, "held", rec.Position)
	_, err = p.Publish(ctx, brokers.Event{ID: "b1", Key: "B"}, false)
	require.NoError(t, err)
	_, err = p.Publish(ctx, brokers.Event{ID: "a2", Key: "A"}, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"b1", "a2", "a1"}, s.order(), "another entity's event does not release it")
	assert.Equal(t, 1, log.Count(brokers.Held, "a1"))
	assert.Equal(t, 1, log.Count(brokers.Published, "a1"))
}

func TestWithoutFaultEventsKeepTheirOrder(t *testing.T) {
	var log brokers.Log
	s := &stored{}
	p := reorder.New(s.publish, &log)
	defer p.Close()
	for _, id := range []string{"a1", "a2", "a3"} {
		_, err := p.Publish(context.Background(), brokers.Event{ID: id, Key: "A"}, false)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"a1", "a2", "a3"}, s.order())
}

func TestHeldEventIsPublishedWhenTheHoldEnds(t *testing.T) {
	var log brokers.Log
	s := &stored{got: make(chan string, 1)}
	p := reorder.New(s.publish, &log)
	defer p.Close()
	p.Arm(brokers.Fault{Kind: brokers.Reorder, EventID: "a1", Hold: time.Millisecond})
	_, err := p.Publish(context.Background(), brokers.Event{ID: "a1"}, false)
	require.NoError(t, err)
	select {
	case id := <-s.got:
		assert.Equal(t, "a1", id)
	case <-time.After(10 * time.Second):
		t.Fatal("the held event was never published")
	}
}

func TestCloseDropsHeldEventsAndRefusesPublishes(t *testing.T) {
	var log brokers.Log
	s := &stored{}
	p := reorder.New(s.publish, &log)
	p.Arm(brokers.Fault{Kind: brokers.Reorder, EventID: "a1", Hold: brokers.MaxHold})
	_, err := p.Publish(context.Background(), brokers.Event{ID: "a1"}, false)
	require.NoError(t, err)
	p.Close() // does not wait for the hold
	_, err = p.Publish(context.Background(), brokers.Event{ID: "a2"}, false)
	assert.ErrorIs(t, err, brokers.ErrClosed)
	assert.Empty(t, s.order())
}

func TestPublishErrorsAndDuplicates(t *testing.T) {
	var log brokers.Log
	s := &stored{}
	p := reorder.New(s.publish, &log)
	defer p.Close()
	_, err := p.Publish(context.Background(), brokers.Event{}, false)
	assert.ErrorContains(t, err, "event id is empty")
	_, err = p.Publish(context.Background(), brokers.Event{ID: "a1"}, true)
	require.NoError(t, err)
	rec, err := p.Publish(context.Background(), brokers.Event{ID: "a1"}, true)
	require.NoError(t, err)
	assert.True(t, rec.Duplicate)
	assert.Equal(t, 1, log.Count(brokers.PublishedDuplicate, "a1"))
	s.fail = errors.New("broker down")
	_, err = p.Publish(context.Background(), brokers.Event{ID: "a3"}, false)
	assert.ErrorContains(t, err, "publish a3: broker down")
}
