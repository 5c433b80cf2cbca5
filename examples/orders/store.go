package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, database/sql driver "pgx"
	_ "modernc.org/sqlite"             // SQLite, pure Go, driver "sqlite"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Order is one row of the orders table.
type Order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Amount   int64  `json:"amount"`
	Note     string `json:"note"`
}

// store is the orders table in PostgreSQL or SQLite.
type store struct {
	db     *sql.DB
	driver string
}

// openStore connects to dsn (postgres://… or sqlite:PATH) and creates the
// table, with the unique index on the key only when unique is true.
func openStore(ctx context.Context, dsn string, unique bool) (*store, error) {
	driver, source, err := refdb.Driver(dsn)
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
	db.SetMaxOpenConns(poolSize)
	db.SetMaxIdleConns(poolSize)
	db.SetConnMaxIdleTime(10 * time.Minute)
	s := &store{db: db, driver: driver}
	if err := s.migrate(ctx, unique); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.warm(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// poolSize is how many connections the service keeps to its database.
const poolSize = 32

// warm opens the pool's connections up front, as a service does before it
// takes traffic: a burst of requests then runs side by side instead of
// queueing behind the database's connection set-up.
func (s *store) warm(ctx context.Context) error {
	conns := make([]*sql.Conn, 0, poolSize)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range poolSize {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("connecting to the database: %w", err)
		}
		conns = append(conns, c)
	}
	return nil
}

func (s *store) migrate(ctx context.Context, unique bool) error {
	id := "BIGSERIAL PRIMARY KEY"
	if s.driver == "sqlite" {
		id = "INTEGER PRIMARY KEY AUTOINCREMENT"
	}
	stmts := []string{`CREATE TABLE IF NOT EXISTS orders (
		id ` + id + `,
		customer TEXT NOT NULL,
		amount BIGINT NOT NULL,
		note TEXT NOT NULL,
		idempotency_key TEXT,
		fingerprint TEXT NOT NULL
	)`}
	if unique {
		stmts = append(stmts, `CREATE UNIQUE INDEX IF NOT EXISTS orders_idempotency_key ON orders (idempotency_key)`)
	}
	var err error
	for _, q := range stmts {
		// Two processes starting on one database race to create it; the
		// loser retries once the winner is done.
		for i := 0; i < 20; i++ {
			if _, err = s.db.ExecContext(ctx, q); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("creating the orders table: %w", err)
		}
	}
	return nil
}

func (s *store) close() error { return s.db.Close() }

// insertOrNothing is INSERT … ON CONFLICT DO NOTHING: with conflictKey,
// on the key's unique index; without, on any constraint (of which the
// table may have none but its primary key). It returns "" when nothing
// was inserted.
func (s *store) insertOrNothing(ctx context.Context, o Order, key, fp string, conflictKey bool) (string, error) {
	target := ""
	if conflictKey {
		target = " (idempotency_key)"
	}
	var id int64
	err := s.db.QueryRowContext(ctx, `INSERT INTO orders (customer, amount, note, idempotency_key, fingerprint)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT`+target+` DO NOTHING RETURNING id`,
		o.Customer, o.Amount, o.Note, key, fp).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return orderID(id), nil
}

// byKey returns the first order made with key and its fingerprint, or nil.
func (s *store) byKey(ctx context.Context, key string) (*Order, string, error) {
	var o Order
	var id int64
	var fp string
	err := s.db.QueryRowContext(ctx, `SELECT id, customer, amount, note, fingerprint FROM orders
		WHERE idempotency_key = $1 ORDER BY id LIMIT 1`, key).Scan(&id, &o.Customer, &o.Amount, &o.Note, &fp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	o.ID = orderID(id)
	return &o, fp, nil
}

// search lists the orders whose note contains text, at most 500.
func (s *store) search(ctx context.Context, text string) ([]Order, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, customer, amount, note FROM orders
		WHERE note LIKE '%' || $1 || '%' ORDER BY id LIMIT 500`, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Order{}
	for rows.Next() {
		var o Order
		var id int64
		if err := rows.Scan(&id, &o.Customer, &o.Amount, &o.Note); err != nil {
			return nil, err
		}
		o.ID = orderID(id)
		out = append(out, o)
	}
	return out, rows.Err()
}

func orderID(id int64) string { return "ord_" + strconv.FormatInt(id, 10) }
