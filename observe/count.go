package observe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
)

// Measurer is a Finder that can also be read without a marker: as one
// number (a count, a sum), or, when rows is true, as the identities of
// every row. Count reads it before and after each intent.
type Measurer interface {
	Measure(ctx context.Context, rows bool) (Reading, error)
}

// Reading is one measure of a source.
type Reading struct {
	// Number is the count or the sum (the number of IDs for rows).
	Number float64
	// Rows says the reading lists rows: IDs are their identities.
	Rows bool
	IDs  []string
}

// Count attributes effects without any caller text: for a target whose
// effects carry nothing a marker could ride in (a ledger whose requests
// hold only numbers and ids, and whose key sits in a column of its own),
// it reads a number or the rows of a table before and after each intent,
// and gives the change to the intent in flight. One of SQL, HTTP or From
// is set:
//
//	{sql: {dsn: …, query: "SELECT count(*) FROM transactions"}}
//	{sql: {dsn: …, query: "SELECT coalesce(sum(amount), 0) FROM transactions"}, unit: 500}
//	{sql: {dsn: …, query: "SELECT id FROM transactions"}, rows: true}
//	{http: {path: /v1/stats, value: total}}
//	{http: {path: /v1/transactions, items: data, pages: {link: true}}}
//
// It holds only when the target's intents run one at a time, which the
// observer says with Serial; every effect it records has
// Detail["attribution"] = "delta".
type Count struct {
	// SQL is a query with no {{marker}}: one number, or rows (Rows).
	SQL *SQL `json:"sql,omitempty"`
	// HTTP is a read-back: the number at its Value, or, without one,
	// every object it lists (each page), by identity.
	HTTP *HTTP `json:"http,omitempty"`
	// From is any other source whose Finder is a Measurer (Go only).
	From Source `json:"-"`
	// Rows says the query returns rows, the first column their identity:
	// the new rows are the effects, each with its own identity, which
	// Merge can match with another observer's.
	Rows bool `json:"rows,omitempty"`
	// Unit is what one effect adds to the number (default 1): with a sum
	// of amounts, the amount each intent moves (fixed in its inputs). A
	// change that is not a whole number of units is an error.
	Unit float64 `json:"unit,omitempty"`
}

var _ Source = Count{}

// Type implements Source.
func (Count) Type() string { return "count" }

// EffectKind implements EffectKind: a row.
func (Count) EffectKind() string { return "row" }

// Validate implements Validator.
func (c Count) Validate() error {
	n := 0
	for _, set := range []bool{c.SQL != nil, c.HTTP != nil, c.From != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errors.New("count: set one of sql (a query) or http (a read-back)")
	}
	if c.Unit < 0 || math.IsNaN(c.Unit) || math.IsInf(c.Unit, 0) {
		return fmt.Errorf("count: unit %v: expected what one effect adds, above zero", c.Unit)
	}
	if c.Rows && c.Unit != 0 {
		return errors.New("count: unit counts a number; rows are counted one by one")
	}
	switch {
	case c.SQL != nil:
		s := *c.SQL
		s.every = true
		return s.Validate()
	case c.HTTP != nil:
		if c.Rows && c.HTTP.Value != "" {
			return errors.New("count: http: value reads one number; without it, rows are the listed objects")
		}
		return c.HTTP.Validate()
	}
	return nil
}

func (c Count) rows() bool { return c.Rows || (c.HTTP != nil && c.HTTP.Value == "") }

// Open implements Source: it opens the inner source and takes the first
// reading, the baseline of the first intent.
func (c Count) Open(ctx context.Context, w Where) (Finder, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var inner Source = c.From
	switch {
	case c.SQL != nil:
		s := *c.SQL
		s.every = true
		inner = s
	case c.HTTP != nil:
		inner = *c.HTTP
	}
	f, err := inner.Open(ctx, w)
	if err != nil {
		return nil, err
	}
	m, ok := f.(Measurer)
	if !ok {
		closeFinder(f)
		return nil, fmt.Errorf("count: a %s source cannot be read without a marker", inner.Type())
	}
	unit := c.Unit
	if unit == 0 {
		unit = 1
	}
	d := &deltaFinder{inner: f, m: m, rows: c.rows(), unit: unit}
	r, err := m.Measure(ctx, d.rows)
	if err != nil {
		closeFinder(f)
		return nil, fmt.Errorf("count: the first reading: %w", err)
	}
	d.last = r
	return d, nil
}

func closeFinder(f Finder) {
	if c := closer(f); c != nil {
		_ = c()
	}
}

// deltaFinder finds, for the intent in flight, what changed since its
// baseline.
type deltaFinder struct {
	inner Finder
	m     Measurer
	rows  bool
	unit  float64

	mu      sync.Mutex
	last    Reading // the latest settled reading
	marker  string  // the intent in flight
	base    Reading // its baseline
	baseIDs map[string]bool
	pending *Reading // the reading of the last Find
}

// begin takes a fresh baseline for marker.
func (d *deltaFinder) begin(ctx context.Context, marker string) error {
	r, err := d.m.Measure(ctx, d.rows)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = r
	d.start(marker)
	return nil
}

// enter makes marker the intent in flight; a new one starts from the
// last reading.
func (d *deltaFinder) enter(_ context.Context, marker string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if marker != d.marker {
		d.start(marker)
	}
	d.pending = nil
	return nil
}

func (d *deltaFinder) start(marker string) {
	d.marker, d.base = marker, d.last
	d.baseIDs = nil
	if d.rows {
		d.baseIDs = make(map[string]bool, len(d.last.IDs))
		for _, id := range d.last.IDs {
			d.baseIDs[id] = true
		}
	}
}

// settled keeps the reading the poll ended on as the last one.
func (d *deltaFinder) settled() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending != nil {
		d.last = *d.pending
	}
}

// Find implements Finder: what changed since the baseline of the intent
// in flight, given to marker.
func (d *deltaFinder) Find(ctx context.Context, marker string) (Found, error) {
	r, err := d.m.Measure(ctx, d.rows)
	if err != nil {
		return Found{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = &r
	detail := func() map[string]string {
		return map[string]string{
			DetailAttribution: ByDelta,
			"before":          num(d.base.Number),
			"after":           num(r.Number),
		}
	}
	var out []Row
	if d.rows {
		for _, id := range r.IDs {
			if !d.baseIDs[id] {
				out = append(out, Row{ID: id, Detail: detail()})
			}
		}
		return Found{Rows: out}, nil
	}
	change := (r.Number - d.base.Number) / d.unit
	if change <= 0 {
		return Found{}, nil // nothing, or a decrease: no effect of this intent to count
	}
	n := math.Round(change)
	if math.Abs(change-n) > 1e-6 {
		return Found{}, fmt.Errorf("the number went from %s to %s, not a whole number of units of %s: fix the amount every intent adds (its inputs) or the unit",
			num(d.base.Number), num(r.Number), num(d.unit))
	}
	for k := 1; k <= int(n); k++ {
		out = append(out, Row{ID: marker + "+" + strconv.Itoa(k), Detail: detail()})
	}
	return Found{Rows: out}, nil
}

// Close releases the inner source.
func (d *deltaFinder) Close() error {
	if c := closer(d.inner); c != nil {
		return c()
	}
	return nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
