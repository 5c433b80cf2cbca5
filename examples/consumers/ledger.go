package consumers

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver of the ledger profiles
)

// ledgerTimeout bounds one event's transaction.
const ledgerTimeout = 30 * time.Second

// ledger books each event as a row of its own PostgreSQL database (--db),
// instead of a charge on the payments service: a consumer whose effects
// are rows only its own data shows.
type ledger struct {
	db *sql.DB
	// unique: event_id is unique, and a row already booked for the event
	// is kept (INSERT … ON CONFLICT DO NOTHING).
	unique bool
}

func (d deps) ledger(unique bool) (*ledger, error) {
	if d.db == "" {
		return nil, errors.New("this profile books its events in a PostgreSQL database: --db postgres://… is required")
	}
	db, err := sql.Open("pgx", d.db)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	schema := `CREATE TABLE IF NOT EXISTS ledger (id text PRIMARY KEY, event_id text NOT NULL, amount bigint NOT NULL, description text NOT NULL)`
	if _, err := db.ExecContext(ctx, schema); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("creating the ledger table: %w", err)
	}
	if unique {
		if _, err := db.ExecContext(ctx, `CREATE UNIQUE INDEX IF NOT EXISTS ledger_event ON ledger (event_id)`); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("creating the ledger's index: %w", err)
		}
	}
	return &ledger{db: db, unique: unique}, nil
}

// book writes the event's row in one transaction; any error means it was
// not written, or whether it was is unknown (a commit whose answer was
// lost).
func (l *ledger) book(ctx context.Context, eventID string, c charge) error {
	ctx, cancel := context.WithTimeout(ctx, ledgerTimeout)
	defer cancel()
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var id [8]byte
	_, _ = rand.Read(id[:])
	q := `INSERT INTO ledger (id, event_id, amount, description) VALUES ($1, $2, $3, $4)`
	if l.unique {
		q += ` ON CONFLICT (event_id) DO NOTHING`
	}
	if _, err := tx.ExecContext(ctx, q, "led_"+hex.EncodeToString(id[:]), eventID, c.Amount, c.Description); err != nil {
		return err
	}
	return tx.Commit()
}

// newLedger: the event's row and its de-duplication are one statement of
// one transaction (event_id is unique, a second row for it is not
// written), committed before the ack. A redelivery after the commit,
// whatever lost the ack or the commit's answer, finds the row and
// writes nothing; one while the first transaction is held waits for it
// on the index.
func newLedger(d deps) (handler, error) { return newBooking(d, true) }

// newLedgerPlain (the flaw: a row per delivery): every delivery inserts a
// row of its own, under a new id. A redelivery after the commit (its
// answer lost, the consumer killed before the ack, a slow transaction
// outliving the ack deadline) books the event twice.
func newLedgerPlain(d deps) (handler, error) { return newBooking(d, false) }

// newLedgerCheckFirst (the flaw: the check and the write are two
// steps): a delivery looks for a row of its event in one statement, and
// books one in another when there was none. A redelivery after the
// commit finds the row; one that comes while the first delivery's
// transaction is still held (a stalled database outliving the ack
// deadline) finds nothing yet, and books the event a second time.
func newLedgerCheckFirst(d deps) (handler, error) {
	l, err := d.ledger(false)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, dl delivery) outcome {
		qctx, cancel := context.WithTimeout(ctx, ledgerTimeout)
		var n int
		err := l.db.QueryRowContext(qctx, `SELECT count(*) FROM ledger WHERE event_id = $1`, dl.eventID).Scan(&n)
		cancel()
		if err == nil && n > 0 {
			return ack
		}
		if err == nil {
			err = l.book(ctx, dl.eventID, parseCharge(dl.payload))
		}
		if err != nil {
			d.logf("event %s: ledger: %v; will retry", dl.eventID, err)
			return retry
		}
		return ack
	}, nil
}

// newLedgerAckFirst (the flaw: the ack before the effect): the delivery
// is acknowledged as soon as it arrives, then its row is booked (event_id
// unique), the write tried again until it succeeds. Nothing is lost while
// the consumer lives, but the row comes after the ack: a crash in
// between loses the event, and a database that refuses it for a while
// leaves the event acknowledged and not yet booked.
func newLedgerAckFirst(d deps) (handler, error) {
	l, err := d.ledger(true)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, dl delivery) outcome {
		if err := dl.ackNow(ctx); err != nil {
			d.logf("event %s: ack: %v; will retry", dl.eventID, err)
			return retry
		}
		deadline := time.Now().Add(ledgerTimeout)
		for {
			err := l.book(ctx, dl.eventID, parseCharge(dl.payload))
			if err == nil {
				return acked
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				d.logf("event %s: ledger: %v; lost (already acknowledged)", dl.eventID, err)
				return acked
			}
			d.logf("event %s: ledger: %v; trying again", dl.eventID, err)
			select {
			case <-ctx.Done():
			case <-time.After(ledgerRetry):
			}
		}
	}, nil
}

// ledgerRetry is how long ledger-ack-first waits before it writes again.
const ledgerRetry = 50 * time.Millisecond

func newBooking(d deps, unique bool) (handler, error) {
	l, err := d.ledger(unique)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, dl delivery) outcome {
		if err := l.book(ctx, dl.eventID, parseCharge(dl.payload)); err != nil {
			d.logf("event %s: ledger: %v; will retry", dl.eventID, err)
			return retry
		}
		return ack
	}, nil
}
