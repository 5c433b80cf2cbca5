package harness

import (
	"context"
	"sort"
	"sync"
)

// slots are the places of the targets that work at once. A target takes
// one to start, gives it up while it only waits, and takes one again to go
// on: one going on is served before one not yet started, and targets not
// yet started are served in the order of the run's specs, so that the
// first given start first whatever the scheduler does.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting []*slotWaiter
}

// slotWaiter is a target waiting for a place: resume says it had one
// before, index is its spec's place in the run.
type slotWaiter struct {
	resume bool
	index  int
	ready  chan struct{}
}

func newSlots(n int) *slots { return &slots{free: max(n, 1)} }

// acquire takes a place for the target at index, waiting its turn; it
// fails only when ctx ends first.
func (s *slots) acquire(ctx context.Context, index int, resume bool) error {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 {
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

// grant hands free places to the first waiters; s.mu is held.
func (s *slots) grant() {
	for s.free > 0 && len(s.waiting) > 0 {
		w := s.waiting[0]
		s.waiting = s.waiting[1:]
		s.free--
		close(w.ready)
	}
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
