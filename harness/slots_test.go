package harness

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlotsOrder: targets not yet started get a place in the order of the
// run's specs, one going on after a wait before any of them, and a wait
// given up when the run ends leaves the count of places as it was.
func TestSlotsOrder(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// fakeCPU is a machine whose processor time the test sets: busy of every
// 100 ticks are spent working since the last read.
type fakeCPU struct {
	mu   sync.Mutex
	s    cpuSample
	busy uint64
}

func (f *fakeCPU) read() (cpuSample, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.s.total += 100
	f.s.idle += 100 - f.busy
	return f.s, true
}

func (f *fakeCPU) set(busy uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.busy = busy
}

// TestCPUGate: a target is let in while the machine's processors spend
// less than the budget working, and the gate looks at most every
// cpuGateEvery, so that the last one let in shows its load first.
func TestCPUGate(t *testing.T) {
	t.Parallel()
	cpu := &fakeCPU{}
	at := time.Unix(0, 0)
	g := &cpuGate{budget: 0.9, read: cpu.read, now: func() time.Time { return at }, lastAt: at}
	cpu.set(50)
	assert.False(t, g.allows(), "too soon after the last look to tell")
	at = at.Add(cpuGateEvery)
	assert.True(t, g.allows(), "half the machine idle")
	at = at.Add(cpuGateEvery / 2)
	assert.False(t, g.allows(), "not before the target let in shows its load")
	cpu.set(95)
	at = at.Add(cpuGateEvery)
	assert.False(t, g.allows(), "95%% busy is over the budget")
	cpu.set(20)
	at = at.Add(cpuGateEvery)
	assert.True(t, g.allows())
	assert.Nil(t, newCPUGate(0, 2), "no budget, no gate")
}

// TestCPUGateLetsInBySpareProcessors: one look lets in one target, and
// two more for every processor's worth of time to spare within the
// budget; what it let in is not let in again before the next look, and a
// look over the budget lets none in.
func TestCPUGateLetsInBySpareProcessors(t *testing.T) {
	t.Parallel()
	cpu := &fakeCPU{}
	at := time.Unix(0, 0)
	g := &cpuGate{budget: 0.9, procs: 2, read: cpu.read, now: func() time.Time { return at }, lastAt: at}
	count := func() int {
		n := 0
		for g.allows() {
			n++
			require.Less(t, n, 100, "the gate never says no")
		}
		return n
	}
	cpu.set(0)
	at = at.Add(cpuGateEvery)
	assert.Equal(t, 4, count(), "an idle two-processor machine: 1 + 2×0.9×2 (rounded down)")
	assert.Equal(t, 0, count(), "none more before the next look")
	cpu.set(40)
	at = at.Add(cpuGateEvery)
	assert.Equal(t, 3, count(), "a processor's worth spare (0.5 of 2): 1 + 2")
	cpu.set(85)
	at = at.Add(cpuGateEvery)
	assert.Equal(t, 1, count(), "just under the budget: one")
	cpu.set(0)
	at = at.Add(cpuGateEvery / 2)
	assert.Equal(t, 0, count(), "too soon after the last look, whatever the machine does")
	cpu.set(95)
	at = at.Add(cpuGateEvery)
	assert.Equal(t, 0, count(), "over the budget: none")
}

// TestSlotsWithGate: with a gate, the first minHeld targets start
// whatever it says; the others wait until it lets them in, in spec order,
// and a target going on after a wait never waits for it.
func TestSlotsWithGate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cpu := &fakeCPU{}
	cpu.set(100)
	g := &cpuGate{budget: 0.9, read: cpu.read, now: time.Now, lastAt: time.Now()}
	s := newSlots(4).withGate(g, 1)
	require.NoError(t, s.acquire(ctx, 0, false), "the first starts whatever the gate says")
	got := make(chan int, 2)
	go func() {
		if s.acquire(ctx, 1, false) == nil {
			got <- 1
		}
	}()
	require.NoError(t, s.acquire(ctx, 2, true), "a target going on does not wait for the gate")
	select {
	case <-got:
		t.Fatal("let in while the machine is busy")
	case <-time.After(3 * cpuGateEvery):
	}
	cpu.set(10)
	select {
	case i := <-got:
		assert.Equal(t, 1, i)
	case <-ctx.Done():
		t.Fatal("never let in once the machine had time to spare")
	}
}

// TestCountOfSaysOneInTheSingular: the progress line of a target with one
// finding says "1 finding", not "1 findings".
func TestCountOfSaysOneInTheSingular(t *testing.T) {
	assert.Equal(t, "0 findings", countOf(0, "finding"))
	assert.Equal(t, "1 finding", countOf(1, "finding"))
	assert.Equal(t, "3 findings", countOf(3, "finding"))
}
