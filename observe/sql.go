package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL through pgx, as database/sql driver "pgx"
	_ "modernc.org/sqlite"             // SQLite, pure Go, as driver "sqlite"
)

// SQL describes a query against the database a target writes to.
type SQL struct {
	// Name names the observer (the Fake of its effects); default "sql".
	Name string
	// Kind is the kind of effect a row is (default "row"), e.g. "order".
	Kind string
	// DSN is postgres://… (or postgresql://…) for PostgreSQL, and
	// sqlite:PATH or file:PATH (with SQLite's URI parameters) for SQLite.
	DSN string
	// Query selects the rows of one intent; {{marker}} (or $marker) stands
	// for the marker, passed as a bound parameter, never spliced in. The
	// first column is the row's identity, the others become evidence:
	//
	//	SELECT id, amount FROM orders WHERE note LIKE '%' || {{marker}} || '%'
	Query  string
	Settle Settle
	// Remote allows a database whose host is not loopback (the target's
	// allow_remote). Without it OpenSQL refuses, before any connection,
	// a DSN that names any other host, however it names it (see
	// CheckLoopbackDSN).
	Remote bool
}

// Driver returns the database/sql driver for dsn ("pgx" or "sqlite") and
// the data source name that driver takes, or an error saying what a DSN
// must look like.
func Driver(dsn string) (driver, source string, err error) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return "pgx", dsn, nil
	case strings.HasPrefix(dsn, "sqlite:"):
		return "sqlite", strings.TrimPrefix(dsn, "sqlite:"), nil
	case strings.HasPrefix(dsn, "file:"):
		return "sqlite", dsn, nil
	}
	return "", "", fmt.Errorf("unsupported database %q: expected postgres://… or sqlite:PATH", redact(dsn))
}

// redact hides a password in a URL-shaped DSN.
func redact(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return dsn
	}
	userinfo := dsn[scheme+3 : at]
	if i := strings.Index(userinfo, ":"); i >= 0 {
		return dsn[:scheme+3] + userinfo[:i] + ":***" + dsn[at:]
	}
	return dsn
}

// Bind rewrites the marker placeholders of q into driver's bound parameter.
func Bind(q, driver string) (string, error) {
	param := "?1"
	if driver == "pgx" {
		param = "$1"
	}
	if !strings.Contains(q, "{{marker}}") && !strings.Contains(q, "$marker") {
		return "", fmt.Errorf("query has no {{marker}}: every row it returns would be counted for every intent")
	}
	return strings.NewReplacer("{{marker}}", param, "$marker", param).Replace(q), nil
}

// OpenSQL connects to the database and checks that it answers. The
// observer owns the connection pool; Close releases it.
func OpenSQL(ctx context.Context, s SQL) (*Observer, error) {
	driver, source, err := Driver(s.DSN)
	if err != nil {
		return nil, err
	}
	q, err := Bind(s.Query, driver)
	if err != nil {
		return nil, err
	}
	var db *sql.DB
	if driver == "pgx" {
		cfg, err := pgConfig(source, s.Remote)
		if err != nil {
			return nil, err
		}
		db = openPG(*cfg)
	} else if db, err = sql.Open(driver, source); err != nil {
		return nil, fmt.Errorf("opening %s: %w", redact(s.DSN), err)
	}
	db.SetMaxOpenConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach the database %s: %w", redact(s.DSN), err)
	}
	name, kind := s.Name, s.Kind
	if name == "" {
		name = "sql"
	}
	if kind == "" {
		kind = "row"
	}
	return New(name, "sql", kind, s.Settle, &sqlFinder{db: db, query: q}, db.Close), nil
}

type sqlFinder struct {
	db    *sql.DB
	query string
}

// Find runs the query with the marker bound.
func (f *sqlFinder) Find(ctx context.Context, marker string) ([]Row, error) {
	rows, err := f.db.QueryContext(ctx, f.query, marker)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []Row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("reading a row: %w", err)
		}
		r := Row{ID: text(vals[0])}
		if len(cols) > 1 {
			r.Detail = map[string]string{}
			for i := 1; i < len(cols); i++ {
				r.Detail[cols[i]] = text(vals[i])
			}
		}
		out = append(out, r)
		if len(out) > maxRows {
			return nil, fmt.Errorf("the query returned more than %d rows for one marker: it should select the rows of one intent", maxRows)
		}
	}
	return out, rows.Err()
}

// maxRows bounds the rows one intent may have: far more than any
// duplicate burst makes, far fewer than a query that ignores the marker.
const maxRows = 1000

func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}
