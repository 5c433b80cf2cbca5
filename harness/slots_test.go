package harness

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlotsOrder: targets not yet started get a place in the order of the
// run's specs, one going on after a wait before any of them, and a wait
// given up when the run ends leaves the count of places as it was.
func TestSlotsOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSlots(1)
	require.NoError(t, s.acquire(ctx, 0, false))
	got := make(chan int, 4)
	waiting := func(n int) {
		deadline := time.Now().Add(5 * time.Second)
		for {
			s.mu.Lock()
			l := len(s.waiting)
			s.mu.Unlock()
			if l == n {
				return
			}
			require.True(t, time.Now().Before(deadline), "%d waiters, want %d", l, n)
			time.Sleep(time.Millisecond)
		}
	}
	for i, idx := range []int{3, 1} {
		go func() {
			if s.acquire(ctx, idx, false) == nil {
				got <- idx
			}
		}()
		waiting(i + 1)
	}
	go func() {
		if s.acquire(ctx, 2, true) == nil {
			got <- -2 // resuming
		}
	}()
	waiting(3)
	var order []int
	for range 3 {
		s.release()
		select {
		case i := <-got:
			order = append(order, i)
		case <-ctx.Done():
			t.Fatal("no place was granted")
		}
	}
	assert.Equal(t, []int{-2, 1, 3}, order, "the target going on first, then the others in spec order")

	// A waiter whose run ends leaves the queue; the place held is still
	// the only one.
	short, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- s.acquire(short, 9, false) }()
	waiting(1)
	stop()
	assert.ErrorIs(t, <-errc, context.Canceled)
	s.mu.Lock()
	assert.Zero(t, s.free)
	assert.Empty(t, s.waiting)
	s.mu.Unlock()
	s.release()
	require.NoError(t, s.acquire(ctx, 0, false), "the place given back is free")
}

// TestSlotLeaveReturn: a target that leaves its place while it waits lets
// another start, and takes one again once that one is done.
func TestSlotLeaveReturn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSlots(1)
	require.NoError(t, s.acquire(ctx, 0, false))
	a := &slot{s: s, index: 0, held: true}
	a.Leave()
	a.Leave() // twice is once
	require.NoError(t, s.acquire(ctx, 1, false), "the place left is free")
	back := make(chan struct{})
	go func() { a.Return(ctx); close(back) }()
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.mu.Lock()
		queued := len(s.waiting) == 1 && s.waiting[0].resume
		s.mu.Unlock()
		if queued {
			break
		}
		require.True(t, time.Now().Before(deadline), "the return never queued")
		time.Sleep(time.Millisecond)
	}
	select {
	case <-back:
		t.Fatal("returned while the only place is taken")
	default:
	}
	s.release()
	select {
	case <-back:
	case <-ctx.Done():
		t.Fatal("never returned")
	}
	assert.True(t, a.held)
	a.Leave()
	s.mu.Lock()
	assert.Equal(t, 1, s.free)
	s.mu.Unlock()
}
