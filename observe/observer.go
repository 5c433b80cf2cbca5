package observe

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
)

// Settle says how long an observer polls its source after an attempt: until
// the rows found for the marker have not changed for Quiet, and never
// longer than Within. A zero Quiet reads once.
type Settle struct {
	// Interval is the pause between two reads (default 10ms).
	Interval time.Duration
	// Quiet is how long the rows must stay the same (0: one read).
	Quiet time.Duration
	// Within bounds the whole poll (default 2s).
	Within time.Duration
}

// Defaults of Settle.
const (
	DefaultInterval = 10 * time.Millisecond
	DefaultWithin   = 2 * time.Second
)

func (s Settle) fill() Settle {
	if s.Interval <= 0 {
		s.Interval = DefaultInterval
	}
	if s.Within <= 0 {
		s.Within = DefaultWithin
	}
	return s
}

// Attribution says how an observer ties an effect to an intent.
const (
	// ByMarker: the source finds the intent's marker in what it reads.
	ByMarker = "marker"
	// ByDelta: the source is read before and after each intent, and what
	// changed is the intent's (Count). It holds only when the target's
	// intents run one at a time.
	ByDelta = "delta"
)

// Detail fields every observed effect carries.
const (
	// DetailSource is the source's Type ("sql", "http").
	DetailSource = "source"
	// DetailObject is what the observer sees (Spec.Object): Merge counts
	// effects of one Object with one ID once.
	DetailObject = "object"
	// DetailAttribution is ByDelta for an effect attributed by delta
	// (absent for one found by its marker).
	DetailAttribution = "attribution"
	// DetailPartial says why the read that found the effect may have
	// missed others (a page limit).
	DetailPartial = "partial"
	// DetailEvidence lists, after Merge, every observer that saw the
	// effect.
	DetailEvidence = "evidence"
)

// Observer records into a ledger the effects a Finder sees. What it has
// recorded is read back from the ledger, so one Observer serves any
// number of ledgers (one per probe run, one per trial) one after the
// other; it keeps only its Stats and, counting by delta, its last reading.
// Its methods are safe for concurrent use.
type Observer struct {
	name   string
	source string
	kind   string
	object string
	settle Settle
	find   Finder
	delta  *deltaFinder // nil unless it counts by delta
	close  func() error

	mu    sync.Mutex
	stats Stats
	seen  map[string]bool // markers asked about
	found map[string]bool // markers with at least one effect
}

// New returns an observer called name (the Fake of every effect it
// records) that records effects of kind found by find; source says what
// find reads ("sql", "http") and closer, if not nil, releases it. A find
// made by Count counts by delta.
func New(name, source, kind string, settle Settle, find Finder, closer func() error) *Observer {
	o := &Observer{name: name, source: source, kind: kind, object: name, settle: settle.fill(), find: find, close: closer,
		seen: map[string]bool{}, found: map[string]bool{}}
	o.delta, _ = find.(*deltaFinder)
	return o
}

// Name names the observer: the Fake of the effects it records.
func (o *Observer) Name() string { return o.name }

// Source says what the observer reads: "sql", "http", "file", …
func (o *Observer) Source() string { return o.source }

// Object is what the observer sees (Spec.Object, default its Name).
func (o *Observer) Object() string { return o.object }

// Attribution says how the observer ties effects to intents: ByMarker or
// ByDelta.
func (o *Observer) Attribution() string {
	if o.delta != nil {
		return ByDelta
	}
	return ByMarker
}

// Serial reports whether the observer's attribution holds only when the
// target's intents run one at a time, as it does for ByDelta: the change
// seen after an attempt is given to the intent in flight, so two intents
// in flight at once would share each other's effects. An engine that
// honours it runs such a target's intents one after the other (no
// concurrent distinct intents; a burst of copies of one intent is still
// one intent) and calls Begin before each intent's first attempt.
func (o *Observer) Serial() bool { return o.delta != nil }

// Begin reads the source before the first attempt of marker's intent: the
// baseline its effects are counted from. It does nothing for an observer
// that attributes by marker. Without Begin, the baseline of a new marker
// is the last reading (of the previous intent, or taken when the observer
// opened), which is the same when nothing changes between intents.
func (o *Observer) Begin(ctx context.Context, marker string) error {
	if o.delta == nil {
		return nil
	}
	if err := o.delta.begin(ctx, marker); err != nil {
		return fmt.Errorf("observer %s (%s): %w", o.name, o.source, err)
	}
	return nil
}

// Observe polls the source for the rows attributed to marker until they
// settle and records in ledger each one the ledger does not hold yet. It
// fails when the source cannot be read; rows seen before the failure are
// recorded all the same.
func (o *Observer) Observe(ctx context.Context, ledger *fakes.Ledger, marker string) error {
	if o.delta != nil {
		if err := o.delta.enter(ctx, marker); err != nil {
			o.note(marker, Found{}, err)
			return fmt.Errorf("observer %s (%s): %w", o.name, o.source, err)
		}
	}
	found, err := o.poll(ctx, marker)
	if o.delta != nil && err == nil {
		o.delta.settled()
	}
	known := map[string]bool{}
	for _, e := range ledger.ByMarker(marker) {
		if e.Fake == o.name {
			known[e.ID] = true
		}
	}
	for _, r := range found.Rows {
		if known[r.ID] {
			continue
		}
		known[r.ID] = true
		detail := map[string]string{DetailSource: o.source, DetailObject: o.object}
		for k, v := range r.Detail {
			detail[k] = v
		}
		if found.Partial != "" {
			detail[DetailPartial] = found.Partial
		}
		ledger.Record(fakes.Effect{Fake: o.name, Kind: o.kind, ID: r.ID, Markers: []string{marker}, Detail: detail, Observed: true})
	}
	o.note(marker, found, err)
	if err != nil {
		return fmt.Errorf("observer %s (%s): %w", o.name, o.source, err)
	}
	return nil
}

// poll reads until the rows have stayed the same for Quiet, within Within.
// A failed read is tried again until the bound: a source that answers
// once it has caught up (or a file caught half-written) is not an error.
func (o *Observer) poll(ctx context.Context, marker string) (Found, error) {
	deadline := time.Now().Add(o.settle.Within)
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var (
		found   Found
		lastErr error
		have    bool
		last    string
		since   time.Time
	)
	for {
		next, err := o.find.Find(rctx, marker)
		if err == nil {
			next.Rows = distinct(next.Rows)
			if cur := ids(next.Rows); !have || cur != last {
				last, since = cur, time.Now()
			}
			found, have, lastErr = next, true, nil
			if time.Since(since) >= o.settle.Quiet {
				return found, nil
			}
		} else if lastErr == nil || rctx.Err() == nil {
			lastErr = err // keep the reason, not the deadline that cut the last read
		}
		wait := min(o.settle.Interval, time.Until(deadline))
		if wait <= 0 {
			if have {
				return found, nil // bounded: what was seen last counts
			}
			return Found{}, lastErr
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return found, ctx.Err()
		case <-t.C:
		}
	}
}

// distinct gives the second and later rows that share an identity in one
// read their own ("k", "k#2", "k#3"): two entries with one key in a file,
// two rows with one value in a column without a unique constraint, are
// two effects, and they are exactly the duplicates an observer is there
// to count.
func distinct(rows []Row) []Row {
	var seen map[string]int
	for i := range rows {
		if seen == nil {
			seen = make(map[string]int, len(rows))
		}
		id := rows[i].ID
		seen[id]++
		if n := seen[id]; n > 1 {
			rows[i].ID = fmt.Sprintf("%s#%d", id, n)
		}
	}
	return rows
}

func ids(rows []Row) string {
	s := make([]string, len(rows))
	for i, r := range rows {
		s[i] = r.ID
	}
	sort.Strings(s)
	return strings.Join(s, "\x00")
}

// Close releases the source (a database pool, a session, a client).
func (o *Observer) Close() error {
	if o.close == nil {
		return nil
	}
	return o.close()
}
