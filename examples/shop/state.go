package shop

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// sequence hands out ids that are sequential per prefix: ord_000001,
// ord_000002, sub_000001, … A durable shop continues after the highest id
// in its key store, so that an id is never handed out twice; otherwise ids
// are per process.
type sequence struct {
	mu sync.Mutex
	n  map[string]int
	// base is added to every id handed out (spread).
	base int
}

func newSequence() *sequence { return &sequence{n: make(map[string]int)} }

func (s *sequence) next(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[prefix]++
	return fmt.Sprintf("%s_%06d", prefix, s.base+s.n[prefix])
}

// instanceRange is how many ids one instance of the shop draws before its
// range would meet the next instance's.
const instanceRange = 100_000_000

// spread moves the sequence to instance's own range of ids.
func (s *sequence) spread(instance int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base = max(0, instance) * instanceRange
}

// observe makes sure the sequence continues after id, one it handed out
// before a restart. Ids of another shape are ignored.
func (s *sequence) observe(id string) {
	prefix, num, ok := strings.Cut(id, "_")
	if !ok {
		return
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n >= s.base {
		n -= s.base // an id of this instance's range
	}
	s.n[prefix] = max(s.n[prefix], n)
}

// book holds what the shop created, per operation, for the read side.
type book struct {
	mu   sync.Mutex
	recs map[string][]record
	// at indexes recs by operation and id, so that a restart puts back a
	// long key store in one pass.
	at map[bookID]int
}

// bookID names a record of the book: its operation and id.
type bookID struct{ op, id string }

func newBook() *book { return &book{recs: make(map[string][]record), at: make(map[bookID]int)} }

func (b *book) add(op string, r record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.at[bookID{op, r.ID}] = len(b.recs[op])
	b.recs[op] = append(b.recs[op], r)
}

// restore adds r as found in the key store after a restart, replacing
// the record with the same id if there is one (a key stored twice).
func (b *book) restore(op string, r record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, ok := b.at[bookID{op, r.ID}]; ok {
		b.recs[op][i] = r
		return
	}
	b.at[bookID{op, r.ID}] = len(b.recs[op])
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
