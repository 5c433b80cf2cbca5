package consumers

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Profiles lists the consumer's profiles, one per de-duplication pattern.
var Profiles = func() []string {
	out := make([]string, 0, len(profiles))
	for p := range profiles {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}()

// outcome is what a handler wants done with a delivery.
type outcome int

const (
	// ack: processed (or found processed): acknowledge it.
	ack outcome = iota
	// retry: not processed: have it delivered again.
	retry
	// acked: the handler acknowledged it itself.
	acked
)

// delivery is one message as a source hands it over.
type delivery struct {
	// eventID is the Event-Id header (or field).
	eventID string
	// entity and seq are the Event-Entity and Event-Seq headers: the
	// entity the event is about and its number within it (0 if absent).
	entity  string
	seq     int64
	payload []byte
	// ackNow acknowledges the delivery (for the ack-first profile).
	ackNow func(ctx context.Context) error
}

// handler processes one delivery.
type handler func(ctx context.Context, d delivery) outcome

// deps is what a profile's handler is built from.
type deps struct {
	pay   *payments
	state string // the state directory; "" keeps none
	db    string // the ledger profiles' PostgreSQL DSN
	log   io.Writer
}

// profiles builds each profile's handler.
var profiles = map[string]func(deps) (handler, error){
	"correct":            newCorrect,
	"memory":             newMemory,
	"mark-first":         newMarkFirst,
	"check-then-insert":  newCheckThenInsert,
	"ack-first":          newAckFirst,
	"none":               newNone,
	"high-water-mark":    newHighWaterMark,
	"ledger":             newLedger,
	"ledger-plain":       newLedgerPlain,
	"ledger-check-first": newLedgerCheckFirst,
	"ledger-ack-first":   newLedgerAckFirst,
}

// headerSeq is the header (Redis: field) with the event's number within
// its entity, as idemcheck's consumer adapter sets it
// (consumer.HeaderEventSeq).
const headerSeq = "Event-Seq"

// parseSeq reads an Event-Seq value; 0 when absent or malformed.
func parseSeq(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// downstreamKey is the Idempotency-Key passed to payments for an event:
// the same for every delivery of it, on every member, across restarts.
func downstreamKey(id string) string { return "evt-" + id }

func (d deps) fileSet() (*fileSet, error) {
	if d.state == "" {
		return nil, fmt.Errorf("this profile keeps its processed events in --state DIR; none given")
	}
	return openFileSet(d.state)
}

func (d deps) logf(format string, args ...any) { fmt.Fprintf(d.log, format+"\n", args...) }

// newCorrect: the processed-set is durable, and the event id goes
// downstream as the Idempotency-Key, so the charge and its de-duplication
// are one transaction at the provider. A redelivery after a crash (after
// the charge and before the mark or the ack) charges again with the same
// key, and payments replays the first charge; a concurrent redelivery gets
// 409 while the first is in flight, and is retried. The event is marked
// processed only once the charge succeeded.
func newCorrect(d deps) (handler, error) { return newDurable(d, false, true) }

// newMarkFirst (the flaw: marked processed, then processed): the durable
// set and the key downstream as correct, but the event is marked before
// the charge. A crash, or a failed charge, between the mark and the charge
// loses the event: the redelivery finds it marked and acks it.
func newMarkFirst(d deps) (handler, error) { return newDurable(d, true, true) }

// newCheckThenInsert (the flaw: look up, act, then insert, with no claim
// in between): a durable set, and no key downstream. Sequential
// redeliveries are skipped; two deliveries of one event processed at the
// same time (a redelivery while the first is still charging) both find it
// absent and both charge; so does the redelivery after a crash between
// the charge and the insert.
func newCheckThenInsert(d deps) (handler, error) { return newDurable(d, false, false) }

// newDurable is the durable processed-set: look the event up, charge, and
// mark it processed; markFirst marks it before the charge instead, and
// withKey passes the event id downstream.
func newDurable(d deps, markFirst, withKey bool) (handler, error) {
	set, err := d.fileSet()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, dl delivery) outcome {
		done, err := set.done(dl.eventID)
		if err != nil {
			d.logf("event %s: processed-set: %v; will retry", dl.eventID, err)
			return retry
		}
		if done {
			return ack
		}
		mark := func() bool {
			if err := set.mark(dl.eventID); err != nil {
				d.logf("event %s: marking processed: %v; will retry", dl.eventID, err)
				return false
			}
			return true
		}
		if markFirst && !mark() {
			return retry
		}
		key := ""
		if withKey {
			key = downstreamKey(dl.eventID)
		}
		if _, err := d.pay.charge(ctx, parseCharge(dl.payload), key); err != nil {
			d.logf("event %s: %v; will retry", dl.eventID, err)
			return retry
		}
		if !markFirst && !mark() {
			return retry
		}
		return ack
	}, nil
}

// newMemory (the flaw: de-duplication in process memory): an atomic claim
// per event id in a map, marked after the charge, and no key downstream.
// Redeliveries to the same running process are de-duplicated, concurrent
// ones too; after a restart, or on another member of the group, the map
// knows nothing and the event is charged again.
func newMemory(d deps) (handler, error) {
	set := newMemorySet()
	return func(ctx context.Context, dl delivery) outcome {
		ok, done := set.claim(dl.eventID)
		if done {
			return ack
		}
		if !ok {
			return retry // being processed by this process
		}
		if _, err := d.pay.charge(ctx, parseCharge(dl.payload), ""); err != nil {
			set.release(dl.eventID)
			d.logf("event %s: %v; will retry", dl.eventID, err)
			return retry
		}
		_ = set.mark(dl.eventID)
		return ack
	}, nil
}

// newAckFirst (the flaw: the ack before the effect): the delivery is
// acknowledged as soon as it arrives, then charged, with the key
// downstream. A crash, or a failed charge, after the ack loses the event:
// the broker has nothing left to redeliver.
func newAckFirst(d deps) (handler, error) {
	return func(ctx context.Context, dl delivery) outcome {
		if err := dl.ackNow(ctx); err != nil {
			d.logf("event %s: ack: %v; will retry", dl.eventID, err)
			return retry
		}
		if _, err := d.pay.charge(ctx, parseCharge(dl.payload), downstreamKey(dl.eventID)); err != nil {
			d.logf("event %s: %v; lost (already acknowledged)", dl.eventID, err)
		}
		return acked
	}, nil
}

// newHighWaterMark (the flaw: de-duplication by the highest sequence
// number seen per entity): a durable high-water mark per entity, and the
// event id downstream as the key. Every redelivery of an event carries
// its number, at or below the mark once processed, and is skipped; a
// crash before the mark is written charges again with the same key. But
// an event that arrives after a later event of its entity (published
// late, or redelivered after it) is below the mark too: it is
// acknowledged and never charged.
func newHighWaterMark(d deps) (handler, error) {
	if d.state == "" {
		return nil, fmt.Errorf("this profile keeps its high-water marks in --state DIR; none given")
	}
	marks, err := openMarks(d.state)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, dl delivery) outcome {
		entity := dl.entity
		if entity == "" {
			entity = dl.eventID
		}
		hwm, err := marks.get(entity)
		if err != nil {
			d.logf("event %s: high-water mark: %v; will retry", dl.eventID, err)
			return retry
		}
		if dl.seq > 0 && dl.seq <= hwm {
			return ack // seen, or so the mark says
		}
		if _, err := d.pay.charge(ctx, parseCharge(dl.payload), downstreamKey(dl.eventID)); err != nil {
			d.logf("event %s: %v; will retry", dl.eventID, err)
			return retry
		}
		if err := marks.raise(entity, dl.seq); err != nil {
			d.logf("event %s: raising the high-water mark: %v; will retry", dl.eventID, err)
			return retry
		}
		return ack
	}, nil
}

// newNone (the flaw: no de-duplication at all): every delivery charges,
// without a key.
func newNone(d deps) (handler, error) {
	return func(ctx context.Context, dl delivery) outcome {
		if _, err := d.pay.charge(ctx, parseCharge(dl.payload), ""); err != nil {
			d.logf("event %s: %v; will retry", dl.eventID, err)
			return retry
		}
		return ack
	}, nil
}
