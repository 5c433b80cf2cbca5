package fakes

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// markerRE matches the markers made by NewMarker.
var markerRE = lazyregexp.New(`idem-[0-9a-f]{16}`)

// NewMarker returns a fresh marker drawn from r, so that one seed gives the
// same markers run after run.
func NewMarker(r *rand.Rand) string {
	return fmt.Sprintf("idem-%016x", r.Uint64())
}

// FindMarkers returns the distinct markers in b, in order of appearance.
func FindMarkers(b []byte) []string {
	all := markerRE.FindAll(b, -1)
	if len(all) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(all))
	out := make([]string, 0, len(all))
	for _, m := range all {
		s := string(m)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Effect is one side effect a fake recorded: a charge, an email, a webhook
// delivery.
type Effect struct {
	// Seq orders effects within one ledger; it starts at 1.
	Seq int64 `json:"seq"`
	// Fake names the fake that recorded it, e.g. "payments".
	Fake string `json:"fake"`
	// Kind says what happened, e.g. "charge".
	Kind string `json:"kind"`
	// ID is the fake's own identifier for the effect, e.g. "ch_000001".
	ID string `json:"id"`
	// Markers are the intent markers found in the request that caused it.
	Markers []string `json:"markers,omitempty"`
	// Key is the idempotency key the target passed on downstream, if any.
	Key string `json:"key,omitempty"`
	// At is when the fake recorded it.
	At time.Time `json:"at"`
	// Detail holds a few fake-specific fields (amount, recipient, …).
	Detail map[string]string `json:"detail,omitempty"`
	// Observed is true for an effect an observer found in the target's
	// own data (a row, a file), not a call the target made to a fake:
	// no fault acts at it, and it carries no key passed on.
	Observed bool `json:"observed,omitempty"`
	// Unanswered is true when the target gave up on the call that made
	// the effect without reading the fake's reply: its own timeout fired
	// first, and it had hung up before the reply was written, or closed
	// the connection with the reply unread in it (a client that reads
	// every reply as it comes, as Go's does, shows only the first); or
	// the harness killed it as the effect was recorded (crash-after-
	// effect). The target cannot have learnt of the effect from that
	// call.
	Unanswered bool `json:"unanswered,omitempty"`
}

// HasMarker reports whether the effect was attributed to marker m.
func (e Effect) HasMarker(m string) bool {
	for _, x := range e.Markers {
		if x == m {
			return true
		}
	}
	return false
}

// Ledger is an append-only, concurrency-safe record of effects. Observers
// registered with Observe are called synchronously, inside Record, after the
// effect is stored and before the fake replies to the target: that is the
// "after effect" fault point.
type Ledger struct {
	mu        sync.Mutex
	effects   []Effect
	observers map[int]func(Effect)
	nextObs   int
	now       func() time.Time
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{observers: map[int]func(Effect){}, now: time.Now}
}

// Record stores e, giving it the next sequence number and the time, and
// calls the observers. It returns the stored effect.
func (l *Ledger) Record(e Effect) Effect {
	l.mu.Lock()
	e.Seq = int64(len(l.effects)) + 1
	if e.At.IsZero() {
		e.At = l.now()
	}
	l.effects = append(l.effects, e)
	obs := make([]func(Effect), 0, len(l.observers))
	for _, fn := range l.observers {
		obs = append(obs, fn)
	}
	l.mu.Unlock()
	for _, fn := range obs {
		fn(e)
	}
	return e
}

// MarkUnanswered sets Unanswered on the effect numbered seq: its caller
// never read the reply to the call that made it (the fake found the
// caller gone, or the harness killed it).
func (l *Ledger) MarkUnanswered(seq int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq >= 1 && seq <= int64(len(l.effects)) {
		l.effects[seq-1].Unanswered = true
	}
}

// Observe registers fn to be called for every effect recorded from now on.
// The returned function unregisters it.
func (l *Ledger) Observe(fn func(Effect)) (cancel func()) {
	l.mu.Lock()
	id := l.nextObs
	l.nextObs++
	l.observers[id] = fn
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.observers, id)
		l.mu.Unlock()
	}
}

// Effects returns a copy of every effect recorded so far, in order.
func (l *Ledger) Effects() []Effect {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Effect(nil), l.effects...)
}

// Since returns the effects with a sequence number greater than seq.
func (l *Ledger) Since(seq int64) []Effect {
	l.mu.Lock()
	defer l.mu.Unlock()
	if seq < 0 {
		seq = 0
	}
	if seq >= int64(len(l.effects)) {
		return nil
	}
	return append([]Effect(nil), l.effects[seq:]...)
}

// LastSeq returns the sequence number of the last effect, 0 if none.
func (l *Ledger) LastSeq() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.effects))
}

// ByMarker returns the effects attributed to marker m.
func (l *Ledger) ByMarker(m string) []Effect {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Effect
	for _, e := range l.effects {
		if e.HasMarker(m) {
			out = append(out, e)
		}
	}
	return out
}
