package observe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// SQL as a Source: the settings are DSN and Query (Name, Kind and Settle
// serve SQLStarter; in a Spec, the Spec's are used).
var _ Source = SQL{}

// Type implements Source.
func (SQL) Type() string { return "sql" }

// EffectKind implements EffectKind: a row.
func (SQL) EffectKind() string { return "row" }

// Validate implements Validator: a query, with the marker unless the
// query counts (Count), and a DSN of a database idemcheck reads, unless
// the DSN is one placeholder known only once expanded
// ("{{env.DATABASE_URL}}").
func (s SQL) Validate() error {
	if strings.TrimSpace(s.Query) == "" {
		return errors.New("query: required: the SELECT that lists an intent's rows, with {{marker}}")
	}
	if _, err := s.bind("sqlite"); err != nil {
		return err
	}
	if s.DSN == "" {
		return errors.New("dsn: required: postgres://… or sqlite:PATH")
	}
	if !placeholderFirst(s.DSN) {
		if _, _, err := Driver(s.DSN); err != nil {
			return fmt.Errorf("dsn: %w", err)
		}
	}
	return nil
}

// Open implements Source: the DSN is expanded first ({{env.NAME}},
// {{state_dir}}), then its scheme is checked. A SQLite file that does not
// exist yet (a command-line tool creates it on its first call) is no rows
// until it does.
func (s SQL) Open(ctx context.Context, w Where) (Finder, error) {
	dsn, err := ExpandDSN(s.DSN, w.Env)
	if err != nil {
		return nil, err
	}
	s.DSN = dsn
	if path, ok := sqliteFile(dsn); ok {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return &laterSQL{s: s, path: path}, nil
		}
	}
	return openSQLFinder(ctx, s)
}

func openSQLFinder(ctx context.Context, s SQL) (*sqlFinder, error) {
	o, err := OpenSQL(ctx, s)
	if err != nil {
		return nil, err
	}
	f := o.find.(*sqlFinder)
	f.every = s.every
	return f, nil
}

// sqliteFile returns the file of a SQLite DSN.
func sqliteFile(dsn string) (string, bool) {
	driver, source, err := Driver(dsn)
	if err != nil || driver != "sqlite" {
		return "", false
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(source, "file:"), "?")
	if path == "" || path == ":memory:" {
		return "", false
	}
	return path, true
}

// bind rewrites the query's marker placeholders for driver; a query that
// counts every row has none.
func (s SQL) bind(driver string) (string, error) {
	if !s.every {
		return Bind(s.Query, driver)
	}
	if strings.Contains(s.Query, "{{marker}}") || strings.Contains(s.Query, "$marker") {
		return "", errors.New("query: a count reads every row, before and after each intent: it takes no {{marker}}")
	}
	return s.Query, nil
}

// maxEvery bounds the rows a count's query may return: the identities of
// every row of a table, kept between two readings.
const maxEvery = 200_000

func (f *sqlFinder) limit() int {
	if f.every {
		return maxEvery
	}
	return maxRows
}

func (f *sqlFinder) tooMany() error {
	if f.every {
		return fmt.Errorf("the query returned more than %d rows: count them in the query (SELECT count(*) …) instead", maxEvery)
	}
	return fmt.Errorf("the query returned more than %d rows for one marker: it should select the rows of one intent", maxRows)
}

// Close releases the connection pool.
func (f *sqlFinder) Close() error { return f.db.Close() }

// Measure implements Measurer: the query's rows (their first column), or
// its one number (a count, a sum; NULL is 0).
func (f *sqlFinder) Measure(ctx context.Context, rows bool) (Reading, error) {
	out, err := f.rows(ctx)
	if err != nil {
		return Reading{}, err
	}
	if rows {
		r := Reading{Rows: true, IDs: make([]string, len(out))}
		for i, x := range out {
			r.IDs[i] = x.ID
		}
		r.Number = float64(len(out))
		return r, nil
	}
	if len(out) != 1 || len(out[0].Detail) > 0 {
		return Reading{}, fmt.Errorf("the query returned %d rows of %d columns: a count returns one number (SELECT count(*) …, SELECT coalesce(sum(amount), 0) …), or set rows: true to count rows by their first column",
			len(out), 1+len(firstDetail(out)))
	}
	return number(out[0].ID)
}

func firstDetail(rows []Row) map[string]string {
	if len(rows) == 0 {
		return nil
	}
	return rows[0].Detail
}

// number reads a count or a sum as a database or an API writes it.
func number(s string) (Reading, error) {
	if s == "" {
		return Reading{}, nil // NULL: the sum of no rows
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return Reading{}, fmt.Errorf("%q is not a number", head([]byte(s)))
	}
	return Reading{Number: n}, nil
}

// laterSQL is a SQLite database whose file does not exist yet: no rows,
// until the file appears and the database opens.
type laterSQL struct {
	s    SQL
	path string

	mu sync.Mutex
	f  *sqlFinder
}

func (l *laterSQL) open(ctx context.Context) (*sqlFinder, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		return l.f, nil
	}
	if _, err := os.Stat(l.path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	f, err := openSQLFinder(ctx, l.s)
	if err != nil {
		return nil, err
	}
	l.f = f
	return f, nil
}

// Find implements Finder.
func (l *laterSQL) Find(ctx context.Context, marker string) (Found, error) {
	f, err := l.open(ctx)
	if err != nil || f == nil {
		return Found{Absent: l.path}, err
	}
	return f.Find(ctx, marker)
}

// Measure implements Measurer: a database not created yet holds nothing.
func (l *laterSQL) Measure(ctx context.Context, rows bool) (Reading, error) {
	f, err := l.open(ctx)
	if err != nil || f == nil {
		return Reading{Rows: rows}, err
	}
	return f.Measure(ctx, rows)
}

// Close implements io.Closer.
func (l *laterSQL) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		return l.f.Close()
	}
	return nil
}
