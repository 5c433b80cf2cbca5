package refdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, database/sql driver "pgx"
	_ "modernc.org/sqlite"             // SQLite, pure Go, driver "sqlite"
)

// Driver returns the database/sql driver for dsn ("pgx" or "sqlite") and
// the data source name that driver takes, or an error saying what a DSN
// must look like: the same DSNs idemcheck's SQL observer takes. A
// reference target is a program of its own, so it reads them itself.
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

// DB is a reference target's database.
type DB struct {
	*sql.DB
	// Driver is "pgx" or "sqlite".
	Driver string
}

// Open connects to dsn (postgres://… or sqlite:PATH) with at most pool
// connections, and runs the schema statements (CREATE … IF NOT EXISTS),
// each retried while another process creates the same schema.
func Open(ctx context.Context, dsn string, pool int, schema ...string) (*DB, error) {
	driver, source, err := Driver(dsn)
	if err != nil {
		return nil, err
	}
	if driver == "sqlite" && !strings.Contains(source, "_pragma") {
		sep := "?"
		if strings.Contains(source, "?") {
			sep = "&"
		}
		source += sep + "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	d := &DB{DB: db, Driver: driver}
	for _, q := range schema {
		q = strings.ReplaceAll(q, "{{id}}", d.IDColumn())
		for i := 0; ; i++ {
			if _, err = db.ExecContext(ctx, q); err == nil {
				break
			}
			if i == 20 || ctx.Err() != nil {
				db.Close()
				return nil, fmt.Errorf("creating the schema: %w", err)
			}
			// Two processes starting on one database race to create it;
			// the loser tries again once the winner is done.
			time.Sleep(50 * time.Millisecond)
		}
	}
	return d, nil
}

// IDColumn is the definition of an auto-numbered primary key, which a
// schema statement writes {{id}}.
func (d *DB) IDColumn() string {
	if d.Driver == "sqlite" {
		return "INTEGER PRIMARY KEY AUTOINCREMENT"
	}
	return "BIGSERIAL PRIMARY KEY"
}

// IsUniqueViolation reports whether err is a unique constraint refusing a
// row, in either database.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "SQLSTATE 23505") || strings.Contains(s, "UNIQUE constraint failed")
}
