package pgpay

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, database/sql driver "pgx"

	"github.com/idemcheck/idemcheck/examples/internal/payapi"
)

// Profiles are the ways the service can keep its keys.
var Profiles = []string{"correct", "any-status", "short-lease", "reply-after-commit"}

// Info describes a profile: the score it is built for and its flaw.
type Info struct {
	Score int
	Flaw  string
}

var infos = map[string]Info{
	"correct":            {3, ""},
	"any-status":         {1, "stores any status under the key: a 500 from a failing database is replayed after it recovered"},
	"short-lease":        {0, "a key lease (500ms) shorter than a stalled request: the retry takes the key over and pays again"},
	"reply-after-commit": {0, "stores the reply outside the payment's transaction: a crash between the two pays twice"},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, bool) {
	i, ok := infos[profile]
	return i, ok
}

// Lease is how long short-lease holds a key in progress.
const Lease = 500 * time.Millisecond

// Main runs the service:
//
//	pgpay --profile NAME [--db postgres://…] [--listen 127.0.0.1:0]
//
// It prints "listening on http://ADDR" once it accepts connections.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pgpay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "", "how keys are kept: "+strings.Join(Profiles, ", "))
	dsn := fs.String("db", os.Getenv("DATABASE_URL"), "the database URL ($DATABASE_URL)")
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, ok := Describe(*profile); !ok || *dsn == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pgpay: --profile (one of %s) and --db or $DATABASE_URL are required\n", strings.Join(Profiles, ", "))
		return 2
	}
	if err := serve(ctx, *profile, *dsn, *listen, stdout); err != nil {
		fmt.Fprintf(stderr, "pgpay: %v\n", err)
		return 1
	}
	return 0
}

type server struct {
	profile string
	db      *sql.DB
}

func serve(ctx context.Context, profile, dsn, listen string, stdout io.Writer) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	_, err = db.ExecContext(mctx, `
CREATE TABLE IF NOT EXISTS payments (id bigserial PRIMARY KEY, amount bigint NOT NULL, note text NOT NULL);
CREATE TABLE IF NOT EXISTS idem (key text PRIMARY KEY, status int NOT NULL DEFAULT 0, id text NOT NULL DEFAULT '',
  error text NOT NULL DEFAULT '', amount bigint NOT NULL DEFAULT 0, expires timestamptz)`)
	cancel()
	if err != nil {
		return fmt.Errorf("creating the tables: %w", err)
	}
	s := &server{profile: profile, db: db}
	return payapi.Serve(ctx, listen, stdout, s.pay)
}

type reply = payapi.Reply

func failure(err error) reply { return payapi.Failure("database", err) }

func (s *server) pay(ctx context.Context, key string, in payapi.Payment) reply {
	var rp reply
	switch s.profile {
	case "correct", "any-status":
		rp = s.oneTx(ctx, key, in.Amount, in.Note)
		if rp.Status >= 500 && s.profile == "any-status" {
			// The flaw: the failure is kept under the key, and replayed.
			_, _ = s.db.ExecContext(context.WithoutCancel(ctx), `INSERT INTO idem (key, status, error, amount) VALUES ($1, $2, $3, $4)
ON CONFLICT (key) DO UPDATE SET status = $2, error = $3`, key, rp.Status, rp.Err, in.Amount)
		}
	case "short-lease":
		rp = s.leased(ctx, key, in.Amount, in.Note)
	case "reply-after-commit":
		rp = s.replyAfter(ctx, key, in.Amount, in.Note)
	}
	return rp
}

// stored replays what is kept under key: the first reply, or 409 while
// it is in progress.
func (s *server) stored(ctx context.Context, key string, amount int64) (reply, bool) {
	var status int
	var id, msg string
	var was int64
	err := s.db.QueryRowContext(ctx, `SELECT status, id, error, amount FROM idem WHERE key = $1`, key).Scan(&status, &id, &msg, &was)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return reply{}, false
	case err != nil:
		return failure(err), true
	case was != amount:
		return payapi.Mismatch, true
	case status == 0:
		return payapi.InProgress, true
	}
	return reply{Status: status, ID: id, Effect: "noop", Err: msg}, true
}

// oneTx claims the key, pays and stores the reply in one transaction: a
// concurrent request with the key waits on the claim until it ends.
func (s *server) oneTx(ctx context.Context, key string, amount int64, note string) reply {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return failure(err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO idem (key, amount) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, amount)
	if err != nil {
		return failure(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		_ = tx.Rollback()
		rp, _ := s.stored(ctx, key, amount)
		return rp
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO payments (amount, note) VALUES ($1, $2) RETURNING id`, amount, note).Scan(&id); err != nil {
		return failure(err)
	}
	pid := fmt.Sprintf("pay_%d", id)
	if _, err := tx.ExecContext(ctx, `UPDATE idem SET status = 201, id = $2 WHERE key = $1`, key, pid); err != nil {
		return failure(err)
	}
	if err := tx.Commit(); err != nil {
		return failure(err)
	}
	return payapi.Created(pid)
}

// leased claims the key for Lease in a transaction of its own, then pays
// and stores the reply; a claim whose lease ran out is taken over.
func (s *server) leased(ctx context.Context, key string, amount int64, note string) reply {
	var got string
	err := s.db.QueryRowContext(ctx, `INSERT INTO idem (key, amount, expires) VALUES ($1, $3, now() + $2 * interval '1 millisecond')
ON CONFLICT (key) DO UPDATE SET expires = EXCLUDED.expires WHERE idem.status = 0 AND idem.expires < now() AND idem.amount = $3
RETURNING key`, key, Lease.Milliseconds(), amount).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		rp, _ := s.stored(ctx, key, amount)
		return rp
	}
	if err != nil {
		return failure(err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return failure(err)
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO payments (amount, note) VALUES ($1, $2) RETURNING id`, amount, note).Scan(&id); err != nil {
		return failure(err)
	}
	pid := fmt.Sprintf("pay_%d", id)
	if _, err := tx.ExecContext(ctx, `UPDATE idem SET status = 201, id = $2 WHERE key = $1`, key, pid); err != nil {
		return failure(err)
	}
	if err := tx.Commit(); err != nil {
		return failure(err)
	}
	return payapi.Created(pid)
}

// replyAfter pays in one transaction and stores the reply in another.
func (s *server) replyAfter(ctx context.Context, key string, amount int64, note string) reply {
	if rp, ok := s.stored(ctx, key, amount); ok {
		return rp
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return failure(err)
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO payments (amount, note) VALUES ($1, $2) RETURNING id`, amount, note).Scan(&id); err != nil {
		return failure(err)
	}
	if err := tx.Commit(); err != nil {
		return failure(err)
	}
	pid := fmt.Sprintf("pay_%d", id)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO idem (key, status, id, amount) VALUES ($1, 201, $2, $3) ON CONFLICT (key) DO NOTHING`, key, pid, amount); err != nil {
		return failure(err)
	}
	return payapi.Created(pid)
}
