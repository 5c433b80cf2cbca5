package observe

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL through pgx, as database/sql driver "pgx"
	_ "modernc.org/sqlite"             // SQLite, pure Go, as driver "sqlite"
)

// SQL describes a query against the database a target writes to. As a
// Source, its settings are dsn and query; Name, Kind and Settle serve
// SQLStarter and OpenSQL (in a Spec, the Spec's are used).
type SQL struct {
	// Name names the observer (the Fake of its effects); default "sql".
	Name string `json:"-"`
	// Kind is the kind of effect a row is (default "row"), e.g. "order".
	Kind string `json:"-"`
	// DSN is postgres://… (or postgresql://…) for PostgreSQL, and
	// sqlite:PATH or file:PATH (with SQLite's URI parameters) for SQLite.
	// It may use {{env.NAME}} anywhere, the whole DSN included, and
	// {{state_dir}}: the scheme is checked once they are expanded.
	DSN string `json:"dsn"`
	// Query selects the rows of one intent; {{marker}} (or $marker) stands
	// for the marker, passed as a bound parameter, never spliced in. The
	// first column is the row's identity, the others become evidence:
	//
	//	SELECT id, amount FROM orders WHERE note LIKE '%' || {{marker}} || '%'
	//
	// It runs in a read-only transaction (SQLite is opened read-only), so
	// an observer can never write.
	Query  string `json:"query"`
	Settle Settle `json:"-"`
	// Remote allows a database whose host is not loopback (the target's
	// allow_remote). Without it OpenSQL refuses, before any connection,
	// a DSN that names any other host, however it names it (see
	// CheckLoopbackDSN).
	Remote bool `json:"-"`

	every bool // the query counts every row (Count): it takes no marker
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
	q, err := s.bind(driver)
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
	} else if db, err = sql.Open(driver, readOnly(driver, source)); err != nil {
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
	every bool // the query reads every row, without a marker (Count)
}

// Find runs the query with the marker bound, in a read-only transaction.
func (f *sqlFinder) Find(ctx context.Context, marker string) (Found, error) {
	out, err := f.rows(ctx, marker)
	return Found{Rows: out}, err
}

// rows runs the query with args, in a read-only transaction, and returns
// its rows: the first column the identity, the others evidence.
func (f *sqlFinder) rows(ctx context.Context, args ...any) ([]Row, error) {
	rows, done, err := readOnlyQuery(ctx, f.db, f.query, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer done()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []Row
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
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
		if len(out) > f.limit() {
			return nil, f.tooMany()
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
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}
