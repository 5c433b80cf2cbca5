package observe

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
)

// readOnly returns the data source name driver opens so that no statement
// can write: SQLite is opened with mode=ro (its URI form, keeping the
// other parameters). PostgreSQL is made read-only per transaction
// (readOnlyQuery), which needs nothing in the DSN.
func readOnly(driver, source string) string {
	if driver != "sqlite" {
		return source
	}
	path, query, _ := strings.Cut(source, "?")
	if !strings.HasPrefix(path, "file:") {
		// A plain path becomes a URI filename: the characters a URI
		// gives a meaning to are escaped.
		path = "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		q = url.Values{}
	}
	q.Set("mode", "ro")
	return path + "?" + q.Encode()
}

// readOnlyQuery runs query in a read-only transaction (PostgreSQL's BEGIN
// READ ONLY; SQLite's is read-only by its connection), so that an
// observer's query can never write, whatever it says. done ends the
// transaction once the rows are read.
func readOnlyQuery(ctx context.Context, db *sql.DB, query string, args ...any) (*sql.Rows, func(), error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		_ = tx.Rollback()
		return nil, nil, err
	}
	return rows, func() {
		rows.Close()
		_ = tx.Rollback() // nothing to commit: it only read
	}, nil
}
