package observe

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
)

// Row is one effect a source found: its identity in the source (a primary
// key, an object id) and a few fields for evidence.
type Row struct {
	ID     string
	Detail map[string]string
}

// Finder lists the rows of a source attributed to marker.
type Finder interface {
	Find(ctx context.Context, marker string) ([]Row, error)
}

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

// Observer records into a ledger the effects a Finder sees. It holds no
// state of its own: what it has recorded is read back from the ledger, so
// one Observer serves any number of ledgers (one per probe run, one per
// trial) one after the other.
type Observer struct {
	name   string
	source string
	kind   string
	settle Settle
	find   Finder
	close  func() error
}

// New returns an observer called name (the Fake of every effect it
// records) that records effects of kind found by find; source says what
// find reads ("sql", "http") and closer, if not nil, releases it.
func New(name, source, kind string, settle Settle, find Finder, closer func() error) *Observer {
	return &Observer{name: name, source: source, kind: kind, settle: settle.fill(), find: find, close: closer}
}

// Name names the observer: the Fake of the effects it records.
func (o *Observer) Name() string { return o.name }

// Source says what the observer reads: "sql" or "http".
func (o *Observer) Source() string { return o.source }

// Observe polls the source for the rows attributed to marker until they
// settle and records in ledger each one the ledger does not hold yet. It
// fails when the source cannot be read; rows seen before the failure are
// recorded all the same.
func (o *Observer) Observe(ctx context.Context, ledger *fakes.Ledger, marker string) error {
	rows, err := o.poll(ctx, marker)
	known := map[string]bool{}
	for _, e := range ledger.ByMarker(marker) {
		if e.Fake == o.name {
			known[e.ID] = true
		}
	}
	for _, r := range rows {
		if known[r.ID] {
			continue
		}
		known[r.ID] = true
		detail := map[string]string{"source": o.source}
		for k, v := range r.Detail {
			detail[k] = v
		}
		ledger.Record(fakes.Effect{Fake: o.name, Kind: o.kind, ID: r.ID, Markers: []string{marker}, Detail: detail})
	}
	if err != nil {
		return fmt.Errorf("observer %s: %w", o.name, err)
	}
	return nil
}

// poll reads until the rows have stayed the same for Quiet, within Within.
// A failed read is tried again until the bound: a source that answers
// once it has caught up is not an error.
func (o *Observer) poll(ctx context.Context, marker string) ([]Row, error) {
	deadline := time.Now().Add(o.settle.Within)
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var (
		rows    []Row
		lastErr error
		have    bool
		last    string
		since   time.Time
	)
	for {
		next, err := o.find.Find(rctx, marker)
		if err == nil {
			if cur := ids(next); !have || cur != last {
				last, since = cur, time.Now()
			}
			rows, have, lastErr = next, true, nil
			if time.Since(since) >= o.settle.Quiet {
				return rows, nil
			}
		} else if lastErr == nil || rctx.Err() == nil {
			lastErr = err // keep the reason, not the deadline that cut the last read
		}
		wait := min(o.settle.Interval, time.Until(deadline))
		if wait <= 0 {
			if have {
				return rows, nil // bounded: what was seen last counts
			}
			return nil, lastErr
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return rows, ctx.Err()
		case <-t.C:
		}
	}
}

func ids(rows []Row) string {
	s := make([]string, len(rows))
	for i, r := range rows {
		s[i] = r.ID
	}
	sort.Strings(s)
	return fmt.Sprint(s)
}

// Close releases the source (a database pool).
func (o *Observer) Close() error {
	if o.close == nil {
		return nil
	}
	return o.close()
}
