package shop

import (
	"fmt"
	"sync"
)

// sequence hands out ids that are sequential per prefix and per process:
// ord_000001, ord_000002, sub_000001, …
type sequence struct {
	mu sync.Mutex
	n  map[string]int
}

func newSequence() *sequence { return &sequence{n: make(map[string]int)} }

func (s *sequence) next(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[prefix]++
	return fmt.Sprintf("%s_%06d", prefix, s.n[prefix])
}

// book holds what the shop created, per operation, for the read side.
type book struct {
	mu   sync.Mutex
	recs map[string][]record
}

func newBook() *book { return &book{recs: make(map[string][]record)} }

func (b *book) add(op string, r record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recs[op] = append(b.recs[op], r)
}

// list returns the records of op for customer, or all of them when
// customer is empty; never nil, so that JSON shows [].
func (b *book) list(op, customer string) []record {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []record{}
	for _, r := range b.recs[op] {
		if customer == "" || r.Customer == customer {
			out = append(out, r)
		}
	}
	return out
}
