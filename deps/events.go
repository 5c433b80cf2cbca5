package deps

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// EventKind says what an Event reports.
type EventKind string

// The events a dependency proxy records.
const (
	// EventStatement: a statement or command attributed to Intent was
	// seen (before any fault acted on it).
	EventStatement EventKind = "statement"
	// EventWrite: a write attributed to Intent was seen.
	EventWrite EventKind = "write"
	// EventCommit: the commit that carries Intent's write is about to be
	// forwarded to the database (a COMMIT, an EXEC, or the write itself
	// outside a transaction).
	EventCommit EventKind = "commit"
	// EventCommitReplied: the database answered the commit that carries
	// Intent's write, and the answer was forwarded to the target (or,
	// with Withheld, dropped by ResetAfterCommit). Committed says whether
	// the transaction committed.
	EventCommitReplied EventKind = "commit-replied"
	// EventFault: a rule armed for Intent acted (Action says which).
	EventFault EventKind = "fault"
	// EventConnected: a target connection became ready for statements
	// (its startup and authentication are done).
	EventConnected EventKind = "connected"
	// EventRefused: a new connection was refused (see Refusal).
	EventRefused EventKind = "refused"
	// EventProblem: something the proxy cannot honour (Err says what;
	// it matches one of the Err values with errors.Is).
	EventProblem EventKind = "problem"
)

// Event is one step a proxy saw or took.
type Event struct {
	// Seq orders the events of one proxy; it starts at 1.
	Seq uint64 `json:"seq"`
	// Kind says what happened.
	Kind EventKind `json:"kind"`
	// Intent is the marker of the intent concerned, if any.
	Intent string `json:"intent,omitempty"`
	// Conn numbers the target's connection to the proxy, from 1.
	Conn uint64 `json:"conn,omitempty"`
	// Statement is the statement or command, cut to StatementLimit bytes.
	Statement string `json:"statement,omitempty"`
	// Action is the action of the rule that acted, for EventFault.
	Action Action `json:"action,omitempty"`
	// Committed says whether the transaction committed, for
	// EventCommitReplied.
	Committed bool `json:"committed,omitempty"`
	// Withheld says the database's answer was dropped, not forwarded,
	// for EventCommitReplied.
	Withheld bool `json:"withheld,omitempty"`
	// Err says what went wrong, for EventProblem.
	Err error `json:"-"`
	// At is when the proxy recorded it.
	At time.Time `json:"at"`
}

// StatementLimit is how much of a statement an Event keeps.
const StatementLimit = 240

// Clip cuts s to StatementLimit bytes for an Event.
func Clip(s string) string {
	if len(s) <= StatementLimit {
		return s
	}
	return s[:StatementLimit] + "…"
}

// eventLimit bounds the events a proxy keeps: past it, the oldest half is
// dropped, so a long run keeps a bounded log. The harness forgets an
// intent's events once it is done with them (Events.Forget).
const eventLimit = 1 << 14

// Events is a proxy's log of events, which callers wait on. The zero value
// is ready.
type Events struct {
	mu      sync.Mutex
	seq     uint64
	log     []Event
	changed chan struct{} // closed and replaced at each Record
}

// Record stamps ev with its sequence number and time (unless set), adds it
// to the log and wakes the waiters. It returns the stamped event.
func (es *Events) Record(ev Event) Event {
	es.mu.Lock()
	defer es.mu.Unlock()
	es.seq++
	ev.Seq = es.seq
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	if len(es.log) >= eventLimit {
		n := copy(es.log, es.log[len(es.log)/2:])
		clear(es.log[n:])
		es.log = es.log[:n]
	}
	es.log = append(es.log, ev)
	if es.changed != nil {
		close(es.changed)
		es.changed = nil
	}
	return ev
}

// All returns a copy of the events kept, oldest first.
func (es *Events) All() []Event {
	es.mu.Lock()
	defer es.mu.Unlock()
	return append([]Event(nil), es.log...)
}

// Forget drops the events of intent.
func (es *Events) Forget(intent string) {
	es.mu.Lock()
	defer es.mu.Unlock()
	kept := es.log[:0]
	for _, ev := range es.log {
		if ev.Intent != intent {
			kept = append(kept, ev)
		}
	}
	clear(es.log[len(kept):])
	es.log = kept
}

// Wait returns the oldest kept event that match accepts, waiting for one to
// be recorded if none has been yet, until ctx is done.
func (es *Events) Wait(ctx context.Context, match func(Event) bool) (Event, error) {
	var seen uint64 // the last sequence number looked at
	for {
		es.mu.Lock()
		// The log is in sequence order, and may have been trimmed since.
		i := sort.Search(len(es.log), func(i int) bool { return es.log[i].Seq > seen })
		for ; i < len(es.log); i++ {
			ev := es.log[i]
			seen = ev.Seq
			if match(ev) {
				es.mu.Unlock()
				return ev, nil
			}
		}
		if es.changed == nil {
			es.changed = make(chan struct{})
		}
		changed := es.changed
		es.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// WaitFor waits for an event of kind for intent (any intent when intent is
// empty) and says which was awaited when ctx ends first.
func (es *Events) WaitFor(ctx context.Context, kind EventKind, intent string) (Event, error) {
	ev, err := es.Wait(ctx, func(ev Event) bool {
		return ev.Kind == kind && (intent == "" || ev.Intent == intent)
	})
	if err != nil {
		who := intent
		if who == "" {
			who = "any intent"
		}
		return ev, fmt.Errorf("waiting for a %s event of %s: %w (events seen: %s)", kind, who, err, es.summary())
	}
	return ev, nil
}

// summary lists the last few events' kinds and intents, for an error.
func (es *Events) summary() string {
	es.mu.Lock()
	defer es.mu.Unlock()
	if len(es.log) == 0 {
		return "none"
	}
	from := max(0, len(es.log)-8)
	s := ""
	if from > 0 {
		s = fmt.Sprintf("%d earlier, then ", from)
	}
	for i, ev := range es.log[from:] {
		if i > 0 {
			s += ", "
		}
		s += string(ev.Kind)
		if ev.Intent != "" {
			s += " " + ev.Intent
		}
	}
	return s
}

// InsistsOnTLS returns the ErrClientRequiresTLS problem in events when no
// target connection became ready after it, else nil. A client that is
// declined TLS and gives up records that problem; a client that merely
// prefers TLS and connects again in plain text (pgx does so with
// sslmode=prefer) records it too, then an EventConnected.
func InsistsOnTLS(events []Event) error {
	var last error
	for _, ev := range events {
		switch {
		case ev.Kind == EventProblem && errors.Is(ev.Err, ErrClientRequiresTLS):
			last = ev.Err
		case ev.Kind == EventConnected:
			last = nil
		}
	}
	return last
}
