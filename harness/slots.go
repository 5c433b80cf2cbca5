package harness

import (
	"context"
	"sort"
	"sync"
	"time"
)

// slots are the places of the targets that work at once. A target takes
// one to start, gives it up while it only waits, and takes one again to go
// on: one going on is served before one not yet started, and targets not
// yet started are served in the order of the run's specs, so that the
// first given start first whatever the scheduler does. With a gate, a
// target not yet started also waits until the machine has processor time
// to spare (see cpuGate), once minHeld places are taken.
type slots struct {
	mu      sync.Mutex
	n, free int
	waiting []*slotWaiter
	gate    *cpuGate
	minHeld int
	// ticking says that a look at the gate is due (tick).
	ticking bool
}

// slotWaiter is a target waiting for a place: resume says it had one
// before, index is its spec's place in the run.
type slotWaiter struct {
	resume bool
	index  int
	ready  chan struct{}
}

func newSlots(n int) *slots { return &slots{n: max(n, 1), free: max(n, 1)} }

// withGate makes targets not yet started wait for gate too, once minHeld
// places are taken (the first always start).
func (s *slots) withGate(gate *cpuGate, minHeld int) *slots {
	s.gate, s.minHeld = gate, max(minHeld, 1)
	return s
}

// acquire takes a place for the target at index, waiting its turn; it
// fails only when ctx ends first.
func (s *slots) acquire(ctx context.Context, index int, resume bool) error {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 && (resume || s.gate == nil || s.n-s.free < s.minHeld) {
		s.free--
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{resume: resume, index: index, ready: make(chan struct{})}
	s.waiting = append(s.waiting, w)
	sort.SliceStable(s.waiting, func(i, j int) bool {
		a, b := s.waiting[i], s.waiting[j]
		if a.resume != b.resume {
			return a.resume
		}
		return a.index < b.index
	})
	s.grant()
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.ready:
			// Granted meanwhile: hand it back.
			s.free++
			s.grant()
		default:
			for i, o := range s.waiting {
				if o == w {
					s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
					break
				}
			}
		}
		return ctx.Err()
	}
}

// release gives a place back.
func (s *slots) release() {
	s.mu.Lock()
	s.free++
	s.grant()
	s.mu.Unlock()
}

// grant hands free places to the first waiters, a target not yet
// started only when the gate lets it in; s.mu is held.
func (s *slots) grant() {
	for s.free > 0 && len(s.waiting) > 0 {
		w := s.waiting[0]
		if !w.resume && s.gate != nil && s.n-s.free >= s.minHeld && !s.gate.allows() {
			s.tick()
			return
		}
		s.waiting = s.waiting[1:]
		s.free--
		close(w.ready)
	}
}

// tick looks at the gate again in a while, for the waiters it kept out;
// s.mu is held.
func (s *slots) tick() {
	if s.ticking {
		return
	}
	s.ticking = true
	time.AfterFunc(cpuGateEvery, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.ticking = false
		s.grant()
	})
}

// slot is one target's place: held or given up while it waits. It is
// used by one target's run at a time.
type slot struct {
	mu    sync.Mutex
	s     *slots
	index int
	held  bool
}

// Leave gives the place up while the target only waits.
func (t *slot) Leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held {
		t.held = false
		t.s.release()
	}
}

// Return takes a place again once the wait is over, before the targets
// not yet started; it gives up when ctx ends first, the run going on
// without one (it is ending).
func (t *slot) Return(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.held && t.s.acquire(ctx, t.index, true) == nil {
		t.held = true
	}
}
