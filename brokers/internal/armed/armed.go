package armed

import (
	"sync"

	"github.com/idemcheck/idemcheck/brokers"
)

type key struct {
	kind brokers.FaultKind
	id   string
}

// Set is a concurrency-safe set of armed faults. The zero value is ready.
type Set struct {
	mu sync.Mutex
	m  map[key]brokers.Fault
}

// Arm adds f, replacing a fault of the same kind armed for the same event.
func (s *Set) Arm(f brokers.Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[key]brokers.Fault{}
	}
	s.m[key{f.Kind, f.EventID}] = f
}

// Take removes and returns the fault of kind k armed for event id.
func (s *Set) Take(k brokers.FaultKind, id string) (brokers.Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.m[key{k, id}]
	if ok {
		delete(s.m, key{k, id})
	}
	return f, ok
}

// Armed reports whether a fault of kind k is armed for event id.
func (s *Set) Armed(k brokers.FaultKind, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[key{k, id}]
	return ok
}

// Any reports whether any fault of kind k is armed.
func (s *Set) Any(k brokers.FaultKind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for kk := range s.m {
		if kk.kind == k {
			return true
		}
	}
	return false
}
