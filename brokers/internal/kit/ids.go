package kit

import "sync"

// IDs maps a broker's own message positions (a stream sequence, an entry
// id) to event ids, learnt from publishes and from deliveries, whichever
// comes first. The zero value is ready; it is safe for concurrent use.
type IDs[K comparable] struct {
	mu sync.Mutex
	m  map[K]string
}

// Learn records that position k holds event id.
func (x *IDs[K]) Learn(k K, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = map[K]string{}
	}
	x.m[k] = id
}

// At returns the event id at position k, "" if unknown.
func (x *IDs[K]) At(k K) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.m[k]
}
